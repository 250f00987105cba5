// The library as its users get it: every library package built, then packed by npm into tarballs (exactly what
// `npm publish` would upload), once per process.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Workspace folders of the published packages (the apps stay private). */
export const LIBRARY_DIRS = [
  'core',
  'reference',
  'wasm',
  'webgpu',
  'rocm',
  'memory',
  'graph',
  'datasets',
  'testing',
  'tandem',
] as const;

/** Tarballs by package name ('tandem', '@tandem/core', ...). */
export interface PackedLibraries {
  /** The folder holding them. */
  readonly dir: string;
  /** Path of each package's tarball. */
  readonly tarballs: ReadonlyMap<string, string>;
}

let packed: Promise<PackedLibraries> | undefined;

/** Builds (tsc -b and the wasm kernels: both skip what is up to date) and packs every library package. */
export function packedLibraries(): Promise<PackedLibraries> {
  packed ??= pack();
  return packed;
}

async function pack(): Promise<PackedLibraries> {
  await run('npm', ['run', 'build'], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-tarballs-'));
  const workspaces = LIBRARY_DIRS.flatMap((d) => ['-w', `packages/${d}`]);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir, ...workspaces], {
    cwd: REPO_ROOT,
    maxBuffer: 64 << 20,
  });
  const listed: unknown = JSON.parse(stdout);
  const tarballs = new Map<string, string>();
  if (Array.isArray(listed)) {
    for (const entry of listed) {
      const name: unknown = Reflect.get(Object(entry), 'name');
      const filename: unknown = Reflect.get(Object(entry), 'filename');
      if (typeof name === 'string' && typeof filename === 'string') tarballs.set(name, path.join(dir, filename));
    }
  }
  if (tarballs.size !== LIBRARY_DIRS.length)
    throw new Error(
      `npm pack gave ${tarballs.size} tarballs (${readdirSync(dir).join(', ')}), expected ${LIBRARY_DIRS.length}`,
    );
  return { dir, tarballs };
}
