// Test helper: engines over the real backends a decoder test can use here (reference, wasm, WebGPU on SwiftShader),
// each created once per test file; a backend that cannot start is reported with its reason and left out.
import { Engine, type CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';

/** An engine, or why it could not be made. */
export type TestEngine = { readonly ok: true; readonly engine: Engine } | { readonly ok: false; readonly reason: string };

/** The reference backend alone (the oracle's kernels, behind the engine). */
export async function referenceEngine(): Promise<Engine> {
  return Engine.create({ backends: [new ReferenceBackend()] });
}

/** wasm (as the CPU) plus the reference as last resort. */
export async function wasmEngine(): Promise<TestEngine> {
  const wasm = new WasmBackend();
  return started([wasm, new ReferenceBackend({ fallbackOnly: true })], wasm.name);
}

/** wasm plus WebGPU on SwiftShader (the machine's only "GPU"); TANDEM_TEST_GPU=native uses the real GPU instead. */
export async function hybridEngine(): Promise<TestEngine> {
  const { createNodeWebGpuBackend, useSwiftShader } = await import('@tandem/webgpu/node');
  if (process.env['TANDEM_TEST_GPU'] !== 'native') {
    const software = useSwiftShader();
    if (!software.ok) return skipped(software.reason);
  }
  const wasm = new WasmBackend();
  const gpu = createNodeWebGpuBackend();
  const made = await started([wasm, gpu], gpu.name);
  if (made.ok) {
    const wasmStatus = made.engine.backends().find((b) => b.name === wasm.name);
    if (wasmStatus?.available !== true) return skipped(`wasm: ${wasmStatus?.unavailableReason ?? 'unavailable'}`);
  }
  return made;
}

async function started(backends: readonly CapableBackend[], required: string): Promise<TestEngine> {
  const engine = await Engine.create({ backends });
  const status = engine.backends().find((b) => b.name === required);
  if (status?.available !== true) {
    await engine.dispose();
    return skipped(`${required}: ${status?.unavailableReason ?? 'unavailable'}`);
  }
  return { ok: true, engine };
}

function skipped(reason: string): TestEngine {
  console.warn(`[graph tests] backend skipped: ${reason}`);
  return { ok: false, reason };
}
