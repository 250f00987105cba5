// A Llama-style decoder block (the tiny one: dim 288, 6 heads): a prefill of 8 tokens, then 16 decode steps, each
// step's wall time, the worst one, and where the first decode step's nodes ran and why.
import { createEngine } from 'tandem';
import { createDecoderWeights, DecoderBlock, formatReport, randomActivations, TINY_DECODER } from '@tandem/graph';

const engine = await createEngine();
const block = DecoderBlock.create(engine, createDecoderWeights(TINY_DECODER, 1));
const cache = block.newCache(32); // tokens
(await block.forward(randomActivations(TINY_DECODER, 8, 2), cache)).outputs.dispose();
const stepMs: number[] = [];
for (let t = 0; t < 16; t++) {
  const start = performance.now();
  const step = await block.forward(randomActivations(TINY_DECODER, 1, 3 + t), cache);
  const out: Float32Array = await step.outputs.get('out').read();
  stepMs.push(performance.now() - start);
  if (t === 0) console.log(formatReport(step.report), `\noutput: ${out.length} values`);
  step.outputs.dispose();
}
console.log(
  `decode steps: worst ${Math.max(...stepMs).toFixed(1)} ms, median ${[...stepMs].sort((a, b) => a - b)[8]?.toFixed(1)} ms`,
);
cache.dispose();
block.dispose();
await engine.dispose();
