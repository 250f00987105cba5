// npm start: the main job. Builds a default engine for this machine, runs a short mixed workload
// (LLM-style ops and a small similarity search), and shows every decision with its reason, then the
// telemetry summary. The Chrome trace goes to bench-results/main-job-trace.json (open it in Perfetto).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRng, formatMs } from '@tandem/core';
import { createEngine, describeReason, quantizeQ4_0, quantizeQ8_0, type Engine, type Tensor } from 'tandem';
import { resultsDir } from './report.ts';

function randomTensor(engine: Engine, shape: number[], seed: number): Tensor {
  const rng = createRng(seed);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  rng.fillNormal(data, 1);
  return engine.tensor(data, shape);
}

/** Where this run's engine started from: the profile a previous run saved for these devices, or none yet. */
function profileLine(engine: Engine): string {
  const notice = engine.telemetry.noticeEvents().find((n) => n.kind.startsWith('profile-'));
  if (notice?.kind === 'profile-loaded') return `Profile: started from what an earlier run learned (${notice.detail})`;
  if (notice !== undefined) return `Profile: ${notice.kind} (${notice.detail})`;
  const where = engine.profile.storedIn;
  if (where === undefined) return 'Profile: off (TANDEM_PROFILE=off)';
  return `Profile: none saved for these devices yet; what this run learns is saved in ${where} (TANDEM_PROFILE=off skips it)`;
}

async function main(): Promise<void> {
  const engine = await createEngine();
  console.log('Tandem main job\n\nBackends found:');
  for (const b of engine.backends()) {
    console.log(
      `  ${b.name.padEnd(10)} ${b.kind}  ${b.available ? `ready: ${b.device ?? ''}` : `unavailable: ${b.unavailableReason ?? ''}`}`,
    );
  }
  if (!engine.backends().some((b) => b.kind === 'gpu' && b.available) && process.env['TANDEM_WEBGPU'] === undefined) {
    console.log(
      '  (no GPU here: TANDEM_WEBGPU=swiftshader npm start adds a software WebGPU, which the scheduler learns to avoid)',
    );
  }

  console.log(`\n${profileLine(engine)}`);

  const steps: Array<[string, () => Promise<Tensor[]>]> = [];
  for (const n of [8, 64, 256]) {
    const a = randomTensor(engine, [n, n], n);
    const b = randomTensor(engine, [n, n], n + 1);
    steps.push([`matmul ${n}x${n}`, () => engine.run({ op: 'matmul', a, b })]);
  }
  const k = 256;
  const x = randomTensor(engine, [1, k], 7);
  const wData = new Float32Array(512 * k);
  createRng(8).fillNormal(wData, 0.05);
  const w8 = engine.tensor(quantizeQ8_0(wData), [512, k], 'q8_0');
  const w4 = engine.tensor(quantizeQ4_0(wData), [512, k], 'q4_0');
  steps.push(['Q8_0 mat-vec 1x256 . 256x512', () => engine.run({ op: 'quantizedMatmul', x, w: w8 })]);
  steps.push(['Q4_0 mat-vec 1x256 . 256x512', () => engine.run({ op: 'quantizedMatmul', x, w: w4 })]);
  const h = randomTensor(engine, [16, 288], 9);
  steps.push(['rmsNorm 16x288', () => engine.run({ op: 'rmsNorm', x: h, weight: undefined, eps: 1e-5 })]);
  const q = randomTensor(engine, [16, 6, 48], 10);
  const kv = randomTensor(engine, [16, 6, 48], 11);
  steps.push([
    'rope 16x6x48',
    () => engine.run({ op: 'rope', x: q, positionOffset: 0, base: 10000, mode: 'interleaved' }),
  ]);
  steps.push([
    'causal attention 16 tokens, 6 heads',
    () => engine.run({ op: 'attention', q, k: kv, v: kv, causal: true, scale: undefined }),
  ]);
  steps.push([
    'softmax 64x512 (causal)',
    () => engine.run({ op: 'softmax', x: randomTensor(engine, [64, 512], 12), causal: true }),
  ]);
  const targets = randomTensor(engine, [4096, 128], 13);
  const query = randomTensor(engine, [1, 128], 14);
  steps.push([
    'cosine 1 x 4096 targets (128-d)',
    () => engine.run({ op: 'cosineSimilarity', queries: query, targets }),
  ]);

  console.log('\nDecisions (each op run 3 times; the scheduler learns from every run):');
  for (const [label, run] of steps) {
    for (let i = 0; i < 3; i++) {
      const outputs = await run();
      const e = engine.telemetry.latestOpEvent();
      if (e !== undefined)
        console.log(
          `  ${label.padEnd(38)} -> ${e.backend.padEnd(10)} ${formatMs(e.durationMs).padStart(9)}  ${describeReason(e.reason, e.costsMs)}`,
        );
      if (label.startsWith('cosine') && i === 2) {
        const sims = outputs[0];
        if (sims?.hasDType('f32') === true) {
          const { values, indices } = await engine.topK(sims, 3);
          console.log(
            `  top-3 similar targets: ${Array.from(await indices.read()).join(', ')} (cosine ${Array.from(await values.read(), (v) => v.toFixed(3)).join(', ')})`,
          );
        }
      }
      for (const o of outputs) o.dispose();
    }
  }

  console.log(`\nTelemetry summary\n${engine.telemetry.debugTable()}`);
  const dir = resultsDir();
  await mkdir(dir, { recursive: true });
  const tracePath = path.join(dir, 'main-job-trace.json');
  await writeFile(tracePath, engine.telemetry.toChromeTrace());
  console.log(`\nChrome trace: ${tracePath} (open in https://ui.perfetto.dev or chrome://tracing)`);
  await engine.dispose();
}

await main();
