// WASM suite: runs @tandem/wasm's kernel benchmark (packages/wasm/scripts/bench.ts) in a child process with
// relaxed SIMD enabled, and turns its report lines into rows; then, in this process (plain SIMD: Node 20 needs a
// flag for relaxed SIMD), f32 matmul side by side with @tensorflow/tfjs-backend-wasm, onnxruntime-web (wasm)
// and plain JS at the same sizes and thread counts (competitors/compare-matmul.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { compareMatmul } from '../competitors/compare-matmul.ts';
import type { Row, SuiteResult } from '../report.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../../../packages/wasm/scripts/bench.ts');
// "<build>  <measurement>  <ms> ms  <detail>" as printed by the script's report().
const LINE = /^(\S+)\s+(.+?)\s+([0-9.]+) ms\s*(.*)$/;

/** Runs the kernel benchmark and parses its report. */
export default async function wasmSuite(): Promise<SuiteResult> {
  const lines: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const l of parts) {
        lines.push(l);
        console.log(l);
      }
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new Error(`wasm kernel benchmark exited with ${code}`);
  const rows: Row[] = [];
  for (const l of lines) {
    const m = LINE.exec(l);
    if (m === null) continue;
    rows.push({ build: m[1] ?? '', measurement: m[2] ?? '', medianMs: Number(m[3]), detail: m[4] ?? '' });
  }
  const header = lines.find((l) => l.startsWith('cpu:')) ?? '';
  const compared = await compareMatmul();
  return {
    suite: 'wasm',
    rows: [...rows, ...compared.rows],
    verdicts: [
      header,
      'median kernel time of repeated runs on resident tensors; targets in issue 3 (>= 45 GFLOP/s one thread, softmax 1024^2 <= 1.5 ms, cosine 768 x 16,384 <= 2 ms, Q4_0 mat-vec faster than f32)',
      'engines compared on whole calls with the result back in JS memory (Tandem: engine.matmul + read on resident inputs)',
      ...compared.verdicts,
    ],
  };
}
