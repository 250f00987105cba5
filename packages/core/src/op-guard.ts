// Checks that a value from outside (IPC, a saved profile) is an op of the union: a known op id, each of its definition's inputs a
// tensor (or absent, when optional) and each parameter of its kind (number, optional number, boolean, or one of the
// listed strings). Derived from the op definitions, so a new op or input needs nothing here.
import { DTYPES, type DType } from './dtype.ts';
import type { ParamKind } from './op-definition.ts';
import { isKnownOp, opDefinition, type Op, type TensorSpec } from './ops.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

function paramFits(value: unknown, kind: ParamKind): boolean {
  if (kind === 'number') return typeof value === 'number';
  if (kind === 'number?') return value === undefined || typeof value === 'number';
  if (kind === 'boolean') return typeof value === 'boolean';
  return kind.some((allowed) => allowed === value);
}

/** Whether `value` is an op whose tensors all pass `isTensor`. */
export function isOpOver<T>(value: unknown, isTensor: (v: unknown) => v is T): value is Op<T> {
  if (!isRecord(value)) return false;
  const kind = value['op'];
  if (!isKnownOp(kind)) return false;
  const definition = opDefinition(kind);
  const inputsFit = definition.inputNames.every((name, i) => {
    const tensor = value[name];
    return (definition.inputSpecs[i]?.optional === true && tensor === undefined) || isTensor(tensor);
  });
  const params: Readonly<Record<string, ParamKind>> = definition.params;
  return inputsFit && Object.entries(params).every(([name, param]) => paramFits(value[name], param));
}

function isDType(value: unknown): value is DType {
  return DTYPES.some((d) => d === value);
}

/** Whether `value` is a plain tensor spec: a dtype and a shape of non-negative integers (limits are checked by run). */
export function isTensorSpec(value: unknown): value is TensorSpec {
  if (!isRecord(value) || !isDType(value['dtype'])) return false;
  const shape = value['shape'];
  return Array.isArray(shape) && shape.every((d) => Number.isInteger(d) && d >= 0);
}
