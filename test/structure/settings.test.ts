// One registry of TANDEM_* settings (packages/core/src/settings.ts): every TANDEM_* name the tree reads is listed
// there, every listed one is read somewhere, and README.md's settings table shows each with the registry's doc.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TANDEM_SETTINGS } from '@tandem/core';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** TANDEM_* names that are not settings: the addon's error codes, C++ macros, a shell variable, the registry itself. */
const NOT_SETTINGS = new Set([
  'TANDEM_BAD_ARGUMENT',
  'TANDEM_BAD_PARAMS',
  'TANDEM_CLOSED',
  'TANDEM_HOST_OUT_OF_MEMORY',
  'TANDEM_INTERNAL',
  'TANDEM_UNKNOWN_BUFFER',
  'TANDEM_UNKNOWN_KERNEL',
  'TANDEM_GRID_STRIDE',
  'TANDEM_HIP_EMULATION',
  'TANDEM_EMU_UCONTEXT',
  'TANDEM_HIP_PLATFORM',
  'TANDEM_HIP_GRAPHS',
  'TANDEM_INDEX',
  'TANDEM_SETTINGS',
]);

/** Source files of the tree (tracked and new), where settings are read. */
function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return listed
    .split('\n')
    .filter(
      (f) => /\.(ts|mts|mjs|js|sh|h|cc|hip)$/.test(f) && !f.includes('node_modules/') && !f.endsWith('settings.ts'),
    );
}

/** Every TANDEM_* name in the sources ("TANDEM_LOAD_*" and the like, which name a group, left out). */
function namesInTree(): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of sourceFiles()) {
    let text: string;
    try {
      text = readFileSync(ROOT + file, 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    for (const match of text.matchAll(/TANDEM_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_]*\*)/g))
      if (!where.has(match[0])) where.set(match[0], file);
  }
  return where;
}

describe('TANDEM_* settings', () => {
  const inTree = namesInTree();

  it('every setting read in the tree is in the registry', () => {
    const unlisted = [...inTree]
      .filter(([name]) => !NOT_SETTINGS.has(name) && !Object.hasOwn(TANDEM_SETTINGS, name))
      .map(([name, file]) => `${name} (${file})`);
    expect(unlisted).toEqual([]);
  });

  it('every registered setting is read somewhere', () => {
    expect(Object.keys(TANDEM_SETTINGS).filter((name) => !inTree.has(name))).toEqual([]);
  });

  it("README.md's settings table lists each with the registry's doc and reader", () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const rows = [...readme.matchAll(/^\| `(TANDEM_[A-Z0-9_]+)` \| (.*) \| (.*) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual(Object.entries(TANDEM_SETTINGS).map(([name, s]) => [name, s.doc, s.readBy]));
  });
});
