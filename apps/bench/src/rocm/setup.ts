// Which tandem_rocm.node the suite loads, and the opened backend plus an engine over it. With --gpu:
// $TANDEM_ROCM_ADDON, else the NVIDIA build, then the AMD build (first with a device). Without: $TANDEM_ROCM_ADDON,
// else the CPU emulation of HIP. Paths are tried from this file's repository and from the working directory,
// so a bundled copy of the suite run from the repository root finds them too.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Engine, errorMessage } from '@tandem/core';
import { RocmBackend, type NativeDeviceInfo, type AddonPlatform } from '@tandem/rocm';

/** Folders that may be the repository root: this file's, then the working directory. */
export function repositoryRoots(): string[] {
  return [...new Set([path.resolve(import.meta.dirname, '../../../..'), process.cwd()])];
}

/** A file under packages/rocm in the first root that has it, else under the first root. */
export function rocmFile(relative: string, roots: readonly string[] = repositoryRoots()): string {
  const found = roots.map((r) => path.join(r, 'packages/rocm', relative)).find((p) => existsSync(p));
  return found ?? path.join(roots[0] ?? '.', 'packages/rocm', relative);
}

/** Addon paths to try, in order: the explicit one alone, else the variants for this mode. */
export function addonPathsFor(
  gpu: boolean,
  explicit: string | undefined,
  roots: readonly string[] = repositoryRoots(),
): string[] {
  if (explicit !== undefined && explicit !== '') return [explicit];
  const variants = gpu ? ['nvidia', 'amd'] : ['emulated'];
  return variants.map((v) => rocmFile(`build/${v}/tandem_rocm.node`, roots));
}

/** An opened ROCm backend and an engine whose only backend it is. */
export interface RocmTarget {
  /** The backend (runs return the kernel time). */
  readonly backend: RocmBackend;
  /** Engine over it, for `{ only: 'rocm' }` calls. */
  readonly engine: Engine;
  /** Build that loaded. */
  readonly platform: AddonPlatform;
  /** The runtime's view of the device. */
  readonly device: NativeDeviceInfo;
  /** The .node file in use. */
  readonly addonPath: string;
}

/** Opens the first addon of `paths` that has a device; otherwise every path's reason, joined. */
export async function openRocm(
  paths: readonly string[],
): Promise<{ ok: true; target: RocmTarget } | { ok: false; reason: string }> {
  const problems: string[] = [];
  for (const addonPath of paths) {
    if (!existsSync(addonPath)) {
      problems.push(`${addonPath} does not exist`);
      continue;
    }
    const backend = new RocmBackend({ addonPath });
    try {
      const init = await backend.init();
      const description = backend.describe();
      if (!init.ok || description.platform === undefined || description.device === undefined) {
        problems.push(init.ok ? `${addonPath}: no device description` : init.reason);
        await backend.dispose();
        continue;
      }
      const engine = await Engine.create({ backends: [backend] });
      return {
        ok: true,
        target: { backend, engine, platform: description.platform, device: description.device, addonPath },
      };
    } catch (error) {
      problems.push(`${addonPath}: ${errorMessage(error)}`);
      await backend.dispose();
    }
  }
  return { ok: false, reason: problems.length === 0 ? 'no addon path to try' : problems.join('; ') };
}
