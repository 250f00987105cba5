// Views at build time: the same rules as core's Tensor.reshape / permute / slice, checked when the graph is built,
// and the resulting layout (so a later reshape of a permuted view is refused here rather than at run time).
import { assertValidShape, describeValue, InvalidArgumentError, isQuantized, numel, type Tensor } from '@tandem/core';
import { isContiguousLayout, rowMajorStrides, type Layout, type SymbolicTensor, type ViewStep } from './symbolic.ts';

/** Shape and layout of a view; throws InvalidArgumentError with core's argument names when the view is not allowed. */
export function viewOf(base: SymbolicTensor, step: ViewStep): { shape: number[]; layout: Layout } {
  const { layout } = base;
  switch (step.kind) {
    case 'reshape': {
      assertValidShape('reshape.shape', step.shape);
      if (numel(step.shape) !== numel(base.shape)) {
        throw new InvalidArgumentError(
          'reshape.shape',
          [...step.shape],
          `must have ${numel(base.shape)} elements like [${base.shape.join(', ')}]`,
        );
      }
      if (!isContiguousLayout(base.shape, layout)) {
        throw new InvalidArgumentError(
          'reshape.this',
          [...base.shape],
          'must be contiguous (a permuted or sliced view cannot be reshaped; run an op on it first)',
        );
      }
      return {
        shape: [...step.shape],
        layout: { strides: rowMajorStrides(step.shape), offset: 0, storageElements: layout.storageElements },
      };
    }
    case 'permute': {
      if (isQuantized(base.dtype))
        throw new InvalidArgumentError(
          'permute.this.dtype',
          base.dtype,
          'quantized tensors cannot be permuted (blocks run along the last dimension)',
        );
      if (!Array.isArray(step.axes))
        throw new InvalidArgumentError('permute.axes', describeValue(step.axes), 'must be an array of axes');
      const sorted = [...step.axes].sort((a, b) => a - b);
      if (step.axes.length !== base.shape.length || sorted.some((a, i) => a !== i)) {
        throw new InvalidArgumentError(
          'permute.axes',
          [...step.axes],
          `must be a permutation of 0..${base.shape.length - 1}`,
        );
      }
      return {
        shape: step.axes.map((a) => base.shape[a] ?? 1),
        layout: {
          strides: step.axes.map((a) => layout.strides[a] ?? 1),
          offset: layout.offset,
          storageElements: layout.storageElements,
        },
      };
    }
    case 'slice': {
      const rows = base.shape[0] ?? 0;
      if (base.shape.length === 0) throw new InvalidArgumentError('slice.this.shape', [], 'must have rank >= 1');
      if (!Number.isInteger(step.start) || step.start < 0 || step.start > rows)
        throw new InvalidArgumentError('slice.start', step.start, `must be an integer in [0, ${rows}]`);
      if (!Number.isInteger(step.end) || step.end < step.start || step.end > rows)
        throw new InvalidArgumentError('slice.end', step.end, `must be an integer in [${step.start}, ${rows}]`);
      if (isQuantized(base.dtype) && !isContiguousLayout(base.shape, layout))
        throw new InvalidArgumentError('slice.this', base.dtype, 'quantized slices need a contiguous tensor');
      return {
        shape: [step.end - step.start, ...base.shape.slice(1)],
        layout: {
          strides: layout.strides,
          offset: layout.offset + step.start * (layout.strides[0] ?? 0),
          storageElements: layout.storageElements,
        },
      };
    }
  }
}

/** A validated step's own copy (the caller may change the arrays it passed). */
export function copyOfStep(step: ViewStep): ViewStep {
  switch (step.kind) {
    case 'reshape':
      return { kind: 'reshape', shape: [...step.shape] };
    case 'permute':
      return { kind: 'permute', axes: [...step.axes] };
    case 'slice':
      return step;
  }
}

/** Replays a view step on a real tensor (free: same storage). */
export function applyView(tensor: Tensor, step: ViewStep): Tensor {
  switch (step.kind) {
    case 'reshape':
      return tensor.reshape(step.shape);
    case 'permute':
      return tensor.permute(step.axes);
    case 'slice':
      return tensor.slice(step.start, step.end);
  }
}
