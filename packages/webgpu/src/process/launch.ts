// Which file the GPU process runs and with which Node flags. Plain Node (e.g. the GPU machine) runs a bundled
// `gpu-process-child.mjs`; from source, the TypeScript entry needs tsx, passed as `--import <tsx loader>`.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readSetting, type SettingName } from '@tandem/core';

/** File name of the bundled child entry, looked for next to the module that forks it. */
export const BUNDLED_CHILD_NAME = 'gpu-process-child.mjs';

/** Environment variable naming the child entry file, overriding the default search. */
export const CHILD_ENTRY_ENV = 'TANDEM_GPU_PROCESS_ENTRY' satisfies SettingName;

/** How to start the child. */
export interface ChildLaunch {
  /** Absolute path of the entry file. */
  readonly entry: string;
  /** Node flags for the child (a TypeScript loader for .ts entries, then the caller's). */
  readonly execArgv: readonly string[];
}

/** Options of resolveChildLaunch. */
export interface ChildLaunchOptions {
  /** The entry file (path or file: URL); default: $TANDEM_GPU_PROCESS_ENTRY, then the bundled, then the source entry. */
  readonly entry?: string | URL;
  /** Extra Node flags for the child. */
  readonly execArgv?: readonly string[];
}

function toPath(entry: string | URL): string {
  return entry instanceof URL || entry.startsWith('file:') ? fileURLToPath(entry) : entry;
}

/** The candidates, in order: explicit, environment, then next to this module: bundled, built, source. */
function candidates(options: ChildLaunchOptions): string[] {
  if (options.entry !== undefined) return [toPath(options.entry)];
  const fromEnv = readSetting(process.env, CHILD_ENTRY_ENV);
  if (fromEnv !== undefined && fromEnv !== '') return [toPath(fromEnv)];
  // Next to this module: a bundle's child, the built package's child (dist/process), the source's (src/process).
  return [BUNDLED_CHILD_NAME, 'child-entry.js', 'child-entry.ts'].map((name) =>
    fileURLToPath(new URL(`./${name}`, import.meta.url)),
  );
}

/** tsx's ESM loader as a file: URL, or undefined when tsx is not installed here. */
function tsxLoader(): string | undefined {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    return undefined;
  }
}

/** The entry and flags to fork, or why the GPU process cannot be started. */
export function resolveChildLaunch(options: ChildLaunchOptions = {}): ChildLaunch | { readonly failed: string } {
  const tried = candidates(options);
  const entry = tried.find((file) => existsSync(file));
  if (entry === undefined) {
    return {
      failed: `no GPU process entry found (tried ${tried.join(', ')}); bundle it as ${BUNDLED_CHILD_NAME} (packages/webgpu/src/process/README.md) or set ${CHILD_ENTRY_ENV}`,
    };
  }
  const extra = options.execArgv ?? [];
  if (!/\.[cm]?ts$/.test(entry)) return { entry, execArgv: extra };
  const loader = tsxLoader();
  if (loader === undefined)
    return {
      failed: `the GPU process entry ${entry} is TypeScript and tsx is not installed; bundle it as ${BUNDLED_CHILD_NAME} for plain Node`,
    };
  return { entry, execArgv: ['--conditions=@tandem/source', '--import', loader, ...extra] };
}
