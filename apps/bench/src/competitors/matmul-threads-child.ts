// Measures Tandem beside onnxruntime-web at one thread count in its own process and prints the measurements as one
// JSON line (prefixed RESULT_PREFIX) for compare-matmul.ts: onnxruntime-web reads env.wasm.numThreads once, when
// its first session starts, so its 1- and 2-thread pools cannot share a process.
// Usage: node -C @tandem/source --import tsx apps/bench/src/competitors/matmul-threads-child.ts <threads>
import { measureGroup, RESULT_PREFIX } from './compare-matmul.ts';
import { ortMatmul } from './onnxruntime-web.ts';
import { tandemMatmul } from './tandem-wasm.ts';
import { numberArg, parseCommandLine } from '../command-line.ts';

const [threadsText] = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx apps/bench/src/competitors/matmul-threads-child.ts [threads]',
    summary: 'Tandem beside onnxruntime-web at one thread count, as one JSON line.',
    positionals: ['threads: 1..64 (default 2)'],
  },
  {},
).positionals;
const threads = numberArg('threads', threadsText, 2, 1, 64);
const measurements = await measureGroup([await tandemMatmul(threads), await ortMatmul(threads)]);
console.log(`${RESULT_PREFIX}${JSON.stringify(measurements)}`);
