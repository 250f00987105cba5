// What the dispatch charts need to know of a case: its family (op, plus the weight type when quantized, so one
// line joins sizes of one kernel) and its size as a number (the elements of all its input tensors).
import { Tensor } from '@tandem/core';
import type { DispatchCase } from './cases.ts';

function inputTensors(c: DispatchCase): Tensor[] {
  return Object.values(c.call).filter((v): v is Tensor => v instanceof Tensor);
}

/** The case's op, followed by its quantized input types if any ('quantizedMatmul q4_0'). */
export function caseFamily(c: DispatchCase): string {
  const quantized = [
    ...new Set(
      inputTensors(c)
        .map((t) => t.dtype)
        .filter((d) => d === 'q4_0' || d === 'q8_0'),
    ),
  ];
  return [c.op, ...quantized].join(' ');
}

/** Elements of every input tensor of the case, summed. */
export function inputElements(c: DispatchCase): number {
  let total = 0;
  for (const t of inputTensors(c)) total += t.shape.reduce((a, b) => a * b, 1);
  return total;
}
