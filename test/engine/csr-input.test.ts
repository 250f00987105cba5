// spreadActivation's CSR input (issue 32): malformed row pointers or column indices are an InvalidArgumentError
// naming the first bad entry, before any backend runs (WASM had clamped them silently). The O(nodes + edges) check
// runs once per (rowPtr, colIdx) pair of storages: tensors never change, so a pair once valid stays valid.
import { describe, expect, it, vi } from 'vitest';
import { Engine, InvalidArgumentError, type Tensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { CsrChecks } from '../../packages/core/src/csr-check.ts';

/** An engine over the reference, with a spy on its run(). */
async function engineWithSpy() {
  const reference = new ReferenceBackend();
  const run = vi.spyOn(reference, 'run');
  return { engine: await Engine.create({ backends: [reference] }), run };
}

/** spreadActivation over raw CSR arrays (3 nodes unless `initial` says otherwise). */
function spread(
  engine: Engine,
  rowPtr: number[] | Tensor<'u32'>,
  colIdx: number[] | Tensor<'u32'>,
  nodes = 3,
): Promise<Tensor> {
  const r = Array.isArray(rowPtr) ? engine.tensor(Uint32Array.from(rowPtr), [rowPtr.length]) : rowPtr;
  const c = Array.isArray(colIdx) ? engine.tensor(Uint32Array.from(colIdx), [colIdx.length]) : colIdx;
  const weights = engine.tensor(new Float32Array(c.shape[0] ?? 0).fill(1), [c.shape[0] ?? 0]);
  const initial = engine.tensor(new Float32Array(nodes).fill(1), [nodes]);
  return engine.spreadActivation({ rowPtr: r, colIdx: c, weights }, initial, {
    decay: 0.5,
    threshold: 0,
    iterations: 2,
  });
}

describe('spreadActivation refuses malformed CSR arrays before any backend runs', () => {
  const cases: Array<[string, number[], number[], string, RegExp]> = [
    ['rowPtr not starting at 0', [1, 1, 2, 2], [0, 1], 'spreadActivation.rowPtr[0]', /1: must be 0/],
    ['rowPtr decreasing', [0, 2, 1, 2], [0, 1], 'spreadActivation.rowPtr[2]', /1: must be >= rowPtr\[1\] \(2\)/],
    [
      'rowPtr not ending at the edge count',
      [0, 1, 1, 1],
      [0, 1],
      'spreadActivation.rowPtr[3]',
      /1: must equal the edge count, colIdx.shape\[0\] \(2\)/,
    ],
    ['rowPtr past the edge count', [0, 1, 5, 5], [0, 1], 'spreadActivation.rowPtr[3]', /5: must equal the edge count/],
    ['a column index out of range', [0, 1, 2, 2], [0, 3], 'spreadActivation.colIdx[1]', /3: must be a node index < 3/],
    ['a huge column index', [0, 1, 2, 2], [2 ** 32 - 1, 0], 'spreadActivation.colIdx[0]', /4294967295/],
  ];
  for (const [name, rowPtr, colIdx, argument, message] of cases) {
    it(name, async () => {
      const { engine, run } = await engineWithSpy();
      const error = await spread(engine, rowPtr, colIdx).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      if (!(error instanceof InvalidArgumentError)) return;
      expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);
      expect(run).not.toHaveBeenCalled();
      expect(engine.trackerStats()).toEqual([]);
    });
  }

  it('wrong lengths are refused by shape (rowPtr must be nodes + 1, weights as long as colIdx)', async () => {
    const { engine } = await engineWithSpy();
    await expect(spread(engine, [0, 1, 2], [0, 1])).rejects.toThrow(
      /rowPtr\.shape\[0\] = 3: must be initial\.shape\[0\] \+ 1 \(4\)/,
    );
  });
});

describe('valid CSR arrays run, checked once per pair', () => {
  it("a valid graph gives the reference kernel's answer; the second call with the same tensors is not checked again", async () => {
    const check = vi.spyOn(CsrChecks.prototype, 'check');
    const { engine } = await engineWithSpy();
    const rowPtr = engine.tensor(Uint32Array.of(0, 2, 3, 3), [4]);
    const colIdx = engine.tensor(Uint32Array.of(1, 2, 2), [3]);
    const first = await (await spread(engine, rowPtr, colIdx)).read();
    const second = await (await spread(engine, rowPtr, colIdx)).read();
    // hop 1: a = [1, 1.5, 2]; hop 2: node 1 += 0.5 * 1, node 2 += 0.5 * (1 + 1.5)
    expect(Array.from(first)).toEqual([1, 2, 3.25]);
    expect(second).toEqual(first);
    expect(check).toHaveBeenCalledTimes(1);
    // Another colIdx with the same rowPtr is a new pair: checked (and refused when bad).
    await expect(spread(engine, rowPtr, engine.tensor(Uint32Array.of(1, 2, 7), [3]))).rejects.toThrow(
      /colIdx\[2\] = 7/,
    );
    expect(check).toHaveBeenCalledTimes(2);
    check.mockRestore();
  });

  it("arrays that live only on a backend (an op's output) and views are checked on their bytes", async () => {
    const { engine } = await engineWithSpy();
    // rowPtr [0, 1, 2, 9] made by an op: only the backend holds it; its last entry is wrong.
    const made = await engine.concat(
      engine.tensor(Uint32Array.of(0, 1), [2]),
      engine.tensor(Uint32Array.of(2, 9), [2]),
    );
    expect(made.residency()).toEqual(['reference']);
    await expect(spread(engine, made, [0, 1])).rejects.toThrow(/rowPtr\[3\] = 9/);
    // A slice view of a longer array: [5, 0, 1, 2, 2] from index 1 is a valid rowPtr.
    const longer = engine.tensor(Uint32Array.of(5, 0, 1, 2, 2), [5]);
    expect(Array.from(await (await spread(engine, longer.slice(1, 5), [1, 2])).read())).toEqual([1, 2, 2.25]);
    await expect(spread(engine, longer.slice(0, 4), [1, 2])).rejects.toThrow(/rowPtr\[0\] = 5: must be 0/);
  });
});
