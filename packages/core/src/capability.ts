import type { Capability, CapableBackend, SupportVerdict } from './backend.ts';
import type { Op, TensorSpec } from './ops.ts';
import { opInputs, primaryInput } from './ops.ts';
import { inferOutputs } from './op-info.ts';
import { numel } from './shape.ts';

/** Checks an op against a capability table and the device's features: the default `supportsOp`. */
export function checkCapabilities(capabilities: readonly Capability[], features: readonly string[], op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
  const first = primaryInput(op);
  let implemented = false;
  let row: Capability | undefined;
  for (const c of capabilities) {
    if (c.op !== op.op) continue;
    implemented = true;
    if (c.dtypes.includes(first.dtype)) {
      row = c;
      break;
    }
  }
  if (!implemented) return { ok: false, reason: `${op.op} is not implemented` };
  if (row === undefined) return { ok: false, reason: `${op.op} does not support dtype ${first.dtype}` };
  if (row.requiresFeature !== undefined && !features.includes(row.requiresFeature)) {
    return { ok: false, reason: `${op.op} on ${first.dtype} needs device feature '${row.requiresFeature}'` };
  }
  if (row.maxElements !== undefined) {
    const limit = row.maxElements;
    let largest = 0;
    for (const input of opInputs(op)) largest = Math.max(largest, numel(input.tensor.shape));
    for (const output of outputs ?? inferOutputs(op)) largest = Math.max(largest, numel(output.shape));
    if (largest > limit) return { ok: false, reason: `${op.op} has a tensor of ${largest} elements; the limit is ${limit}` };
  }
  return { ok: true };
}

/** A backend's verdict on an op: its own supportsOp when it has one, else its capability table. */
export function backendSupports(backend: CapableBackend, op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
  if (backend.supportsOp !== undefined) return backend.supportsOp(op, outputs);
  return checkCapabilities(backend.capabilities, backend.describe().features, op, outputs);
}
