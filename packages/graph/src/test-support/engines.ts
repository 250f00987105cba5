// Test helper: engines over the real backends a decoder test can use here (reference, wasm, WebGPU on SwiftShader),
// each created once per test file. A backend that cannot start is a visible skip outside CI and a failure under CI
// (test/support/backends.ts); callers skip with `it.skipIf(!made.ok)`.
import { Engine, type CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { startBackend } from '../../../../test/support/backends.ts';

/** An engine, or why it could not be made (outside CI only). */
export type TestEngine =
  | { readonly ok: true; readonly engine: Engine }
  | { readonly ok: false; readonly reason: string };

/** The reference backend alone (the oracle's kernels, behind the engine). */
export async function referenceEngine(): Promise<Engine> {
  return Engine.create({ backends: [new ReferenceBackend()] });
}

/** wasm (as the CPU) plus the reference as last resort. */
export async function wasmEngine(): Promise<TestEngine> {
  const wasm = await startBackend('wasm');
  if (wasm === undefined) return { ok: false, reason: 'wasm did not start' };
  return { ok: true, engine: await Engine.create({ backends: [wasm, new ReferenceBackend({ fallbackOnly: true })] }) };
}

/** wasm plus WebGPU on SwiftShader (the machine's only "GPU"); TANDEM_TEST_GPU=native uses the real GPU instead. */
export async function hybridEngine(): Promise<TestEngine> {
  const started: CapableBackend[] = [];
  for (const name of ['wasm', 'webgpu'] as const) {
    const backend = await startBackend(name);
    if (backend === undefined) {
      await Promise.all(started.map((b) => b.dispose()));
      return { ok: false, reason: `${name} did not start` };
    }
    started.push(backend);
  }
  return { ok: true, engine: await Engine.create({ backends: started }) };
}
