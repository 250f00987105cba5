// Which Chromium the browser tests use and with which flags. Debian's chromium package (Playwright's own
// download host is unreachable here, so `npx playwright install` cannot work).
import { isExecutable } from '../support/requirements.ts';

/** Debian's Chromium. */
export const CHROMIUM_PATH = process.env['TANDEM_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * Flags for every launch: no sandbox (root in a container), no background traffic. Checked with Chromium 156:
 * --disable-gpu does not turn WebGPU off; the adapter stays SwiftShader.
 */
export const BASE_FLAGS: readonly string[] = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Without this, navigator.gpu exists on Linux but requestAdapter() resolves null. */
export const WEBGPU_FLAG = '--enable-unsafe-webgpu';

/** Why the browser tests cannot run here, or undefined when Chromium is installed. */
export function chromiumMissing(): string | undefined {
  if (isExecutable(CHROMIUM_PATH)) return undefined;
  return `${CHROMIUM_PATH} not found (or not executable)`;
}
