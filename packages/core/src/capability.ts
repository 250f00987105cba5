import type { Capability, CapableBackend, SupportVerdict } from './backend.ts';
import type { Op, TensorSpec } from './ops.ts';
import { primaryInput } from './ops.ts';

/** Checks an op against a capability table (implemented, for its first input's dtype): the default `supportsOp`. */
export function checkCapabilities(capabilities: readonly Capability[], op: Op<TensorSpec>): SupportVerdict {
  const first = primaryInput(op);
  let implemented = false;
  for (const c of capabilities) {
    if (c.op !== op.op) continue;
    implemented = true;
    if (c.dtypes.includes(first.dtype)) return { ok: true };
  }
  return {
    ok: false,
    reason: implemented ? `${op.op} does not support dtype ${first.dtype}` : `${op.op} is not implemented`,
  };
}

/** A backend's verdict on an op: its own supportsOp when it has one, else its capability table. */
export function backendSupports(
  backend: CapableBackend,
  op: Op<TensorSpec>,
  outputs?: readonly TensorSpec[],
): SupportVerdict {
  if (backend.supportsOp !== undefined) return backend.supportsOp(op, outputs);
  return checkCapabilities(backend.capabilities, op);
}
