// Bad input: each mistake is a typed error naming the argument, the value and the rule, before any backend is asked.
// (An unknown option key or a tensor of a dtype the op does not take is already a compile error in TypeScript; in
// JavaScript it is an InvalidArgumentError like these.)
import { createEngine, InvalidArgumentError } from 'tandem';

const engine = await createEngine();
const a = engine.random([2, 3], { seed: 1 });
const mistakes: Array<[string, () => unknown]> = [
  ['inner dimensions differ', () => engine.matmul(a, engine.ones([4, 2]))],
  ['an axis softmax does not support', () => engine.softmax(a, { axis: 0 })],
  ['a tensor of another engine', async () => engine.add(a, (await createEngine({ forceCpu: true })).ones([2, 3]))],
  ['k larger than the row', () => engine.topK(a, 5)],
  ['a shape that does not fit the data', () => engine.tensor(new Float32Array(5), [2, 3])],
  ['a value i32 cannot hold', () => engine.full([2], 0.5, 'i32')],
  ['a strategy naming no backend', () => engine.silu(a, { strategy: { only: 'cuda' } })],
];
for (const [what, mistake] of mistakes) {
  try {
    await mistake();
    console.log(`${what}: accepted?!`);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    console.log(`${what}: ${error.message}`);
  }
}
await engine.dispose();
