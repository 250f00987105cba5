// concat along axis 0: resident in linear memory, one memory.copy per side (wasm-kernels/concat.ts).
import { byteLengthOf, numel } from '@tandem/core';
import type { WasmKernel } from '../kernel-support.ts';

/** The wasm backend's concat. */
export const concatKernel: WasmKernel<'concat'> = {
  run(op, outs, ctx) {
    const [aBytes, bBytes] = [byteLengthOf(op.a.dtype, numel(op.a.shape)), byteLengthOf(op.b.dtype, numel(op.b.shape))];
    ctx.kernels.concat_bytes(
      aBytes === 0 ? 0 : ctx.pointer(op.a),
      aBytes,
      bBytes === 0 ? 0 : ctx.pointer(op.b),
      bBytes,
      outs[0] ?? 0,
    );
  },
};
