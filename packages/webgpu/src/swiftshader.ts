// Node on Linux only: points Dawn's Vulkan backend at SwiftShader from Debian's chromium package, for CI and
// machines without a GPU. Call before the first requestAdapter().
//  - VK_ICD_FILENAMES selects SwiftShader's ICD;
//  - XDG_RUNTIME_DIR is set to a private 0700 folder (Mesa and the loader complain otherwise);
//  - when the system has no Vulkan loader (libvulkan1 not installed), chromium's own copy is loaded with
//    RTLD_NODELETE | RTLD_GLOBAL, so Dawn's later dlopen("libvulkan.so.1") finds it by soname.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's chromium package puts SwiftShader. */
export const CHROMIUM_DIR = '/usr/lib/chromium';

/** Outcome of useSwiftShader. */
export type SoftwareVulkanResult =
  | { readonly ok: true; readonly detail: string }
  | { readonly ok: false; readonly reason: string };

const RTLD_NOW = 2;
const RTLD_GLOBAL = 0x100;
const RTLD_NODELETE = 0x1000;

/** Configures the process for SwiftShader; { ok: false, reason } when chromium's SwiftShader is absent. */
export function useSwiftShader(dir: string = CHROMIUM_DIR): SoftwareVulkanResult {
  const icd = join(dir, 'vk_swiftshader_icd.json');
  if (process.platform !== 'linux')
    return { ok: false, reason: `SwiftShader setup is for Linux (this is ${process.platform})` };
  if (!existsSync(icd)) return { ok: false, reason: `${icd} not found (apt-get install chromium)` };
  process.env['VK_ICD_FILENAMES'] = icd;
  ensurePrivateRuntimeDir();
  const loader = loadVulkanLoader(join(dir, 'libvulkan.so.1'));
  return { ok: true, detail: `VK_ICD_FILENAMES=${icd}; ${loader}` };
}

function ensurePrivateRuntimeDir(): void {
  const current = process.env['XDG_RUNTIME_DIR'];
  if (current !== undefined && existsSync(current) && (statSync(current).mode & 0o777) === 0o700) return;
  process.env['XDG_RUNTIME_DIR'] = mkdtempSync(join(tmpdir(), 'tandem-xdg-'));
}

/** Makes libvulkan.so.1 resolvable: the system's if present, else `fallback` pinned into the process. */
function loadVulkanLoader(fallback: string): string {
  if (tryDlopen('libvulkan.so.1', RTLD_NOW)) return 'system Vulkan loader';
  if (!existsSync(fallback)) return 'no Vulkan loader found';
  return tryDlopen(fallback, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)
    ? `Vulkan loader ${fallback}`
    : `could not load ${fallback}`;
}

/** Whether this process can load a Vulkan loader (Linux: libvulkan.so.1, the system's or one pinned by useSwiftShader). */
export function vulkanLoaderAvailable(): boolean {
  return process.platform !== 'linux' || tryDlopen('libvulkan.so.1', RTLD_NOW);
}

/** dlopen through process.dlopen: the library loads, then Node rejects it as "not a Node module". */
function tryDlopen(file: string, flags: number): boolean {
  try {
    process.dlopen({ exports: {} }, file, flags);
    return true;
  } catch (error) {
    return error instanceof Error && /self-register|napi_register_module/i.test(error.message);
  }
}
