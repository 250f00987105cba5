// Issue #4 figure 3 (--gpu only): the cuBLAS SGEMM ceiling from apps/bench/probes/cublas-ceiling.py (PyTorch,
// TF32 off; prints one JSON object). Skipped with a reason when python3 or torch is missing.
import { spawn } from 'node:child_process';
import { errorMessage } from '@tandem/core';
import { CUBLAS_CEILING_SCRIPT } from '../rocm/ceilings.ts';
import type { Outcome } from './guard.ts';

/** The ceilings the script measures that this suite uses. */
export interface CublasCeiling {
  /** Device name torch reports. */
  readonly device: string;
  /** SGEMM n = 4096, TFLOP/s. */
  readonly sgemm4096Tflops: number;
  /** f32 GEMV 1,000,000 x 768, TB/s (the cosine scan's byte stream). */
  readonly gemvTbps: number | undefined;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

/** Reads the script's JSON line; throws when the SGEMM figure is missing. */
export function parseCublasOutput(stdout: string): CublasCeiling {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  if (line === undefined) throw new Error('cublas-ceiling.py printed no JSON');
  const json: unknown = JSON.parse(line);
  const sgemm = field(field(json, 'sgemm_4096'), 'tflops');
  const gemv = field(field(json, 'gemv_1Mx768'), 'tbps');
  const device = field(json, 'device');
  if (typeof sgemm !== 'number') throw new Error('cublas-ceiling.py JSON has no sgemm_4096.tflops');
  return {
    device: typeof device === 'string' ? device : 'unknown',
    sgemm4096Tflops: sgemm,
    gemvTbps: typeof gemv === 'number' ? gemv : undefined,
  };
}

/** Runs the script with python3 (limit `timeoutMs`); { ok: false, reason } when it cannot run. */
export async function measureCublasCeiling(timeoutMs: number): Promise<Outcome<CublasCeiling>> {
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn('python3', [CUBLAS_CEILING_SCRIPT], {
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: timeoutMs,
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('error', reject);
        child.on('close', (c) => resolve({ code: c ?? 1, stdout: out, stderr: err }));
      },
    );
    if (code !== 0) {
      const last = stderr.trim().split('\n').slice(-1)[0] ?? '';
      return {
        ok: false,
        reason: `python3 cublas-ceiling.py exited ${code}${/No module named 'torch'/.test(stderr) ? ' (no torch)' : ''}: ${last}`,
      };
    }
    return { ok: true, value: parseCublasOutput(stdout) };
  } catch (error) {
    return { ok: false, reason: `cannot run python3 cublas-ceiling.py: ${errorMessage(error)}` };
  }
}
