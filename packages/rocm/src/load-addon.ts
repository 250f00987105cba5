// Finds and loads the built addon: $TANDEM_ROCM_ADDON (or an explicit path) when given, else every variant
// under packages/rocm/build/ (amd first, then nvidia). Loading never throws; failures come back as text.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '@tandem/core';
import { isRocmAddon, type RocmAddon } from './addon-api.ts';

/** Build variants, in the order they are tried. */
export const ADDON_VARIANTS = ['amd', 'nvidia'] as const;

/** The command that builds the addon (the package's bin; in this repository node packages/rocm/scripts/build.mjs), for reasons. */
export const BUILD_COMMAND = 'npx tandem-rocm-build';

/** Where build.mjs puts its output: packages/rocm/build. */
export const DEFAULT_BUILD_DIR = fileURLToPath(new URL('../build', import.meta.url));

/** Where a variant's build lands. */
export function variantPath(variant: (typeof ADDON_VARIANTS)[number], buildDir: string = DEFAULT_BUILD_DIR): string {
  return join(buildDir, variant, 'tandem_rocm.node');
}

/** Paths to try: the explicit one alone, else the built variants that exist in buildDir. */
export function addonCandidates(explicitPath: string | undefined, buildDir: string = DEFAULT_BUILD_DIR): string[] {
  if (explicitPath !== undefined && explicitPath !== '') return [explicitPath];
  return ADDON_VARIANTS.map((v) => variantPath(v, buildDir)).filter((p) => existsSync(p));
}

/** A module that loaded, or why it did not. */
export type AddonLoad =
  | { readonly ok: true; readonly path: string; readonly addon: RocmAddon }
  | { readonly ok: false; readonly path: string; readonly reason: string };

const requireNative = createRequire(import.meta.url);

/** Loads one .node file. */
export function loadAddon(path: string): AddonLoad {
  if (!existsSync(path)) return { ok: false, path, reason: `${path} does not exist` };
  let loaded: unknown;
  try {
    loaded = requireNative(path);
  } catch (error) {
    return { ok: false, path, reason: `${path} failed to load: ${errorMessage(error)}` };
  }
  if (!isRocmAddon(loaded)) {
    const stale = typeof loaded === 'object' && loaded !== null && typeof Reflect.get(loaded, 'kernels') === 'function';
    return {
      ok: false,
      path,
      reason: stale
        ? `${path} was built from older sources (it reports no kernel limits): rebuild it (${BUILD_COMMAND})`
        : `${path} is not a Tandem ROCm addon`,
    };
  }
  return { ok: true, path, addon: loaded };
}
