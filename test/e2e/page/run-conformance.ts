/// <reference types="@webgpu/types" />
// The page's work: WebGPU from navigator.gpu when this browser has it (else the reason why not), WASM when its
// kernels load (else why not), and every conformance case on each, through the CapableBackend interface only; the
// reference runs its one plumbing case (casesFor), as Node judges every output against the reference's kernels.
// Browser-safe: imports the case data and the runner from test/conformance, never its Node-only backends.ts.
import { backendSupports, errorMessage, type CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { WebGpuBackend } from '@tandem/webgpu';
import { caseRng, type ConformanceCase } from '../../conformance/cases.ts';
import { runCaseOnBackend, specOf } from '../../conformance/run-case.ts';
import {
  casesFor,
  encodeTensor,
  inputChecksums,
  type BackendRun,
  type CaseOutcome,
  type PageReport,
} from '../report.ts';

/** WebGPU as this page sees it: a ready backend, or why there is none. */
type WebGpuProbe =
  | { readonly backend: CapableBackend; readonly detail: string }
  | { readonly backend: undefined; readonly detail: string };

function isGpu(value: unknown): value is GPU {
  return (
    typeof value === 'object' &&
    value !== null &&
    'requestAdapter' in value &&
    typeof value.requestAdapter === 'function'
  );
}

/** navigator.gpu, checked, or undefined. */
function navigatorGpu(): GPU | undefined {
  const nav: unknown = Reflect.get(globalThis, 'navigator');
  const gpu: unknown = typeof nav === 'object' && nav !== null ? Reflect.get(nav, 'gpu') : undefined;
  return isGpu(gpu) ? gpu : undefined;
}

async function probeWebGpu(): Promise<WebGpuProbe> {
  const gpu = navigatorGpu();
  if (gpu === undefined)
    return { backend: undefined, detail: 'navigator.gpu is not available in this browser or context' };
  const backend = new WebGpuBackend({ gpu });
  const init = await backend.init();
  if (!init.ok) return { backend: undefined, detail: `WebGPU init failed: ${init.reason}` };
  return { backend, detail: backend.describe().name };
}

/** The WASM backend (threads only where the page is cross-origin isolated), or why it did not start. */
async function probeWasm(): Promise<CapableBackend | string> {
  const backend = new WasmBackend({ threads: 'auto' });
  const init = await backend.init();
  return init.ok ? backend : init.reason;
}

async function runCase(backend: CapableBackend, c: ConformanceCase): Promise<CaseOutcome> {
  const name = c.name;
  const op = c.build(caseRng(name));
  const verdict = backendSupports(backend, specOf(op));
  if (!verdict.ok) return { name, status: 'unsupported', reason: verdict.reason };
  try {
    const outputs = await runCaseOnBackend(backend, op);
    return { name, status: 'ran', inputChecksums: inputChecksums(op), outputs: outputs.map(encodeTensor) };
  } catch (error) {
    return { name, status: 'failed', reason: errorMessage(error) };
  }
}

async function runAll(backend: CapableBackend): Promise<BackendRun> {
  const t0 = performance.now();
  const cases: CaseOutcome[] = [];
  for (const c of casesFor(backend.name)) cases.push(await runCase(backend, c));
  return { backend: backend.name, device: backend.describe().name, ms: performance.now() - t0, cases };
}

/** Runs every case on WebGPU and WASM (each when present), the plumbing case on the reference; never throws. */
export async function runConformanceInPage(): Promise<PageReport> {
  const nav: unknown = Reflect.get(globalThis, 'navigator');
  const agent: unknown = typeof nav === 'object' && nav !== null ? Reflect.get(nav, 'userAgent') : undefined;
  const userAgent = typeof agent === 'string' ? agent : 'unknown';
  const runs: BackendRun[] = [];
  const unavailable: Array<{ backend: string; reason: string }> = [];
  let webgpu = { available: false, detail: 'not probed' };
  try {
    const probe = await probeWebGpu();
    webgpu = { available: probe.backend !== undefined, detail: probe.detail };
    if (probe.backend === undefined) unavailable.push({ backend: 'webgpu', reason: probe.detail });
    const wasm = await probeWasm();
    if (typeof wasm === 'string') unavailable.push({ backend: 'wasm', reason: wasm });
    const reference = new ReferenceBackend();
    await reference.init();
    const backends = [probe.backend, typeof wasm === 'string' ? undefined : wasm, reference].filter(
      (b): b is CapableBackend => b !== undefined,
    );
    for (const backend of backends) {
      runs.push(await runAll(backend));
      await backend.dispose();
    }
    return { userAgent, webgpu, unavailable, runs, error: undefined };
  } catch (error) {
    return { userAgent, webgpu, unavailable, runs, error: errorMessage(error) };
  }
}
