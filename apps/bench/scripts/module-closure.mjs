#!/usr/bin/env node
// Prints, one per line, the node_modules folders (relative to the repository root) that the given packages need
// at run time: each package and, transitively, its dependencies, optionalDependencies and installed
// peerDependencies, resolved the way Node does (nearest node_modules first, then each parent folder's).
//
//   node apps/bench/scripts/module-closure.mjs [--skip NAME]... PACKAGE...
//
// Skipped: any --skip NAME (e.g. `webgpu`, which the GPU kit restores), type-only packages (@types/*,
// @webgpu/types) and optional dependencies that are not installed. A required dependency that is not installed
// is an error (exit 1), so a pack never silently misses one. Uses nothing but Node's standard library.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TYPE_ONLY = /^(@types\/|@webgpu\/types$)/;

/** The folder of `name` as seen from `fromDir` (a package folder), or undefined when none is installed. */
function resolvePackage(name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || dir === path.dirname(dir)) return undefined;
    dir = path.dirname(dir);
  }
}

/** Names this package needs at run time, each with whether it may be absent. */
function runtimeDependencies(pkgDir) {
  const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const needs = [];
  for (const name of Object.keys(manifest.dependencies ?? {})) needs.push({ name, optional: false });
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) needs.push({ name, optional: true });
  for (const name of Object.keys(manifest.peerDependencies ?? {})) needs.push({ name, optional: true });
  return needs;
}

const USAGE = 'Usage: node apps/bench/scripts/module-closure.mjs [--skip NAME]... PACKAGE...';

function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { skip: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const skip = new Set(values.skip ?? []);
  const roots = positionals;
  if (roots.length === 0) throw new Error(`no package named; ${USAGE}`);
  const found = new Set();
  const queue = roots.map((name) => ({ name, optional: false, from: ROOT, by: '(root)' }));
  while (queue.length > 0) {
    const need = queue.shift();
    if (skip.has(need.name) || TYPE_ONLY.test(need.name)) continue;
    const dir = resolvePackage(need.name, need.from);
    if (dir === undefined) {
      if (need.optional) continue;
      throw new Error(`${need.name} (needed by ${need.by}) is not installed under ${ROOT}/node_modules`);
    }
    const rel = path.relative(ROOT, dir);
    if (found.has(rel)) continue;
    found.add(rel);
    for (const dep of runtimeDependencies(dir)) queue.push({ ...dep, from: dir, by: need.name });
  }
  process.stdout.write(
    [...found]
      .sort()
      .map((p) => `${p}\n`)
      .join(''),
  );
}

try {
  main(process.argv.slice(2));
} catch (error) {
  console.error(`module-closure: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(
    error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS') ? 2 : 1,
  );
}
