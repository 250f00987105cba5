// The packages as a registry would get them: publint and arethetypeswrong on every tarball, and the manifests kept
// honest (every import declared by the package that makes it, test-only packages as devDependencies, data packages
// pinned exactly, every install script npm would run named in allowScripts).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_DIRS, packedLibraries, REPO_ROOT, type PackedLibraries } from './support/pack.ts';

const run = promisify(execFile);
/** A dev dependency's command (npx would add its own start-up to each call). */
const BIN = (name: string): string => path.join(REPO_ROOT, 'node_modules', '.bin', name);

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly allowScripts?: Record<string, boolean>;
}

function manifest(file: string): Manifest {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Package names a TypeScript file imports (static and dynamic imports, as TypeScript's own scanner finds them). */
function importedPackages(text: string): Set<string> {
  const names = new Set<string>();
  for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
    if (specifier.startsWith('.') || specifier.startsWith('#') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier));
  }
  return names;
}

/** The .ts files under `dir`, split into shipped sources and test-only files (tests, test-support, testing). */
function sourcesOf(dir: string): { shipped: string[]; testOnly: string[] } {
  const shipped: string[] = [];
  const testOnly: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, file);
    const isTest = rel.endsWith('.test.ts') || /(^|\/)(test-support|testing|tools)\//.test(rel);
    (isTest ? testOnly : shipped).push(file);
  }
  return { shipped, testOnly };
}

describe('published package checks', () => {
  let packed: PackedLibraries | undefined;
  beforeAll(async () => {
    packed = await packedLibraries();
  }, 600_000);

  // Concurrent: each check is a child process, and one at a time left a core idle.
  it.concurrent.each(LIBRARY_DIRS)(
    '%s passes publint --strict and arethetypeswrong (ESM-only profile)',
    async (dir) => {
      const name = manifest(path.join(REPO_ROOT, 'packages', dir, 'package.json')).name;
      const tarball = packed?.tarballs.get(name) ?? '';
      const publint = await run(BIN('publint'), ['run', '--strict', tarball], { cwd: REPO_ROOT });
      expect(publint.stdout).toContain('All good!');
      // esm-only: CommonJS `require` of these packages is Node's require(esm) (>= 20.19), checked by the node consumer.
      const attw = await run(BIN('attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped'], {
        cwd: REPO_ROOT,
      }).catch((error: unknown) => error);
      expect(attw).not.toBeInstanceOf(Error);
    },
    120_000,
  );

  it.each(LIBRARY_DIRS)(
    '%s declares what it imports: sources in dependencies or peerDependencies, tests in devDependencies',
    (dir) => {
      const m = manifest(path.join(REPO_ROOT, 'packages', dir, 'package.json'));
      const root = manifest(path.join(REPO_ROOT, 'package.json'));
      const runtime = new Set([m.name, ...Object.keys(m.dependencies ?? {}), ...Object.keys(m.peerDependencies ?? {})]);
      const forTests = new Set([
        ...runtime,
        ...Object.keys(m.devDependencies ?? {}),
        ...Object.keys(root.devDependencies ?? {}),
      ]);
      const { shipped, testOnly } = sourcesOf(path.join(REPO_ROOT, 'packages', dir, 'src'));
      const undeclared = shipped.flatMap((f) =>
        [...importedPackages(readFileSync(f, 'utf8'))]
          .filter((p) => !runtime.has(p))
          .map((p) => `${path.basename(f)}: ${p}`),
      );
      expect(undeclared).toEqual([]);
      const undeclaredInTests = testOnly.flatMap((f) =>
        [...importedPackages(readFileSync(f, 'utf8'))]
          .filter((p) => !forTests.has(p))
          .map((p) => `${path.basename(f)}: ${p}`),
      );
      expect(undeclaredInTests).toEqual([]);
      // A dependency no shipped file imports is test-only, or dead weight: either way not a runtime dependency.
      const used = new Set(shipped.flatMap((f) => [...importedPackages(readFileSync(f, 'utf8'))]));
      const unused = Object.keys(m.dependencies ?? {}).filter(
        (d) => !used.has(d) && !d.startsWith('@types/') && d !== 'node-addon-api' && d !== '@webgpu/types',
      );
      expect(unused).toEqual([]);
    },
  );

  it('pins data packages exactly, and the loaders name the same versions', () => {
    const datasets = manifest(path.join(REPO_ROOT, 'packages/datasets/package.json'));
    const peers = datasets.peerDependencies ?? {};
    for (const version of Object.values(peers)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const paths = readFileSync(path.join(REPO_ROOT, 'packages/datasets/src/paths.ts'), 'utf8');
    for (const [name, version] of Object.entries(peers)) expect(paths).toContain(`'${name}': '${version}'`);
    expect(datasets.devDependencies).toEqual(peers);
  });

  it('names every dependency with an install script in allowScripts', () => {
    const lock: { packages: Record<string, { hasInstallScript?: boolean; link?: boolean }> } = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'),
    );
    const withScripts = Object.entries(lock.packages)
      .filter(([where, p]) => p.hasInstallScript === true && where.includes('node_modules/'))
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const allowed = manifest(path.join(REPO_ROOT, 'package.json')).allowScripts ?? {};
    expect(withScripts.filter((name) => !(name in allowed))).toEqual([]);
  });
});
