// Matrix work: a small dense layer and a pick of the best column per row, on whichever backend is fastest here.
import { createEngine } from 'tandem';

const engine = await createEngine();
const x = engine.random([32, 64], { seed: 1 }); // Tensor<'f32'> [32, 64]
const w = engine.random([64, 16], { seed: 2, distribution: 'normal', std: 0.1 });
const bias = engine.full([16], 0.01);
const logits = await engine.add(await engine.matmul(x, w), bias); // bias broadcasts over the rows
const probabilities = await engine.softmax(logits, { label: 'layer.softmax' });
const { values, indices } = await engine.topK(probabilities, 2); // each [32, 2]
const best: Int32Array = await indices.read();
const scores: Float32Array = await values.read();
console.log(`row 0: columns ${best[0]} and ${best[1]}, p = ${scores[0]?.toFixed(3)} and ${scores[1]?.toFixed(3)}`);
console.log(engine.explain({ op: 'matmul', a: x, b: w }).selection);
await engine.dispose();
