// Ceilings from outside Tandem: cuBLAS / PyTorch figures from apps/bench/probes/cublas-ceiling.py (TF32 off;
// one JSON object on stdout) and the memory clock nvidia-smi reports. Each comes back as a value or a reason.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** The script that measures the cuBLAS / PyTorch ceilings (run by the rocm and webgpu suites with --gpu). */
export const CUBLAS_CEILING_SCRIPT = path.resolve(import.meta.dirname, '../../probes/cublas-ceiling.py');

/** What cublas-ceiling.py measured. */
export interface CublasCeilings {
  /** Device name torch reports. */
  readonly device: string;
  /** SGEMM 4096, TFLOP/s. */
  readonly sgemm4096Tflops: number;
  /** Elementwise x * 1.5 over 1 GiB (read + write), TB/s. */
  readonly scaleTbps: number | undefined;
  /** f32 GEMV 1M x 768, TB/s of the matrix. */
  readonly gemvTbps: number | undefined;
}

/** A value, or why there is none. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

function numberAt(value: unknown, key: string, field: string): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner: unknown = Reflect.get(value, key);
  if (typeof inner !== 'object' || inner === null) return undefined;
  const n: unknown = Reflect.get(inner, field);
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Reads the script's output: its last line that parses as a JSON object with sgemm_4096.tflops. */
export function parseCublasOutput(stdout: string): Outcome<CublasCeilings> {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'));
  for (const line of lines.reverse()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const sgemm = numberAt(parsed, 'sgemm_4096', 'tflops');
    if (sgemm === undefined) continue;
    const device: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'device') : undefined;
    return {
      ok: true,
      value: {
        device: typeof device === 'string' ? device : 'unknown',
        sgemm4096Tflops: sgemm,
        scaleTbps: numberAt(parsed, 'scale_1GiB', 'tbps'),
        gemvTbps: numberAt(parsed, 'gemv_1Mx768', 'tbps'),
      },
    };
  }
  return { ok: false, reason: 'no JSON object with sgemm_4096.tflops in its output' };
}

/** Why the script gave nothing: python3 missing, torch missing, no CUDA device, or the tail of its stderr. */
export function explainCublasFailure(status: number | null, stderr: string, spawnError: string | undefined): string {
  if (spawnError !== undefined)
    return spawnError.includes('ENOENT') ? 'python3 is not installed' : `python3 did not run: ${spawnError}`;
  if (/No module named ['"]?torch/.test(stderr)) return 'torch is not installed for python3';
  if (/CUDA|cuda|NVIDIA driver/.test(stderr)) return `torch found no usable CUDA device (${lastLine(stderr)})`;
  return `cublas-ceiling.py exited with ${status ?? 'a signal'}: ${lastLine(stderr)}`;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

/** Runs cublas-ceiling.py with python3 (at most timeoutMs). */
export function runCublasCeiling(scriptPath: string, timeoutMs: number): Outcome<CublasCeilings> {
  const child = spawnSync('python3', [scriptPath], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 22 });
  const parsed = parseCublasOutput(child.stdout ?? '');
  if (child.status === 0 && parsed.ok) return parsed;
  if (child.error !== undefined && child.signal === 'SIGTERM')
    return { ok: false, reason: `cublas-ceiling.py ran past ${timeoutMs / 1000} s` };
  return { ok: false, reason: explainCublasFailure(child.status, child.stderr ?? '', child.error?.message) };
}

/** Reads `nvidia-smi --query-gpu=clocks.max.memory --format=csv,noheader,nounits`: MHz of the first GPU. */
export function parseMemoryClockMHz(stdout: string): number | undefined {
  const first = stdout.trim().split('\n')[0]?.trim() ?? '';
  const mhz = Number(first);
  return first !== '' && Number.isFinite(mhz) && mhz > 0 ? mhz : undefined;
}

/** The first GPU's maximum memory clock from nvidia-smi, in kHz, or why not. */
export function nvidiaSmiMemoryClockKHz(): Outcome<number> {
  const child = spawnSync('nvidia-smi', ['--query-gpu=clocks.max.memory', '--format=csv,noheader,nounits'], {
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (child.error !== undefined)
    return {
      ok: false,
      reason: child.error.message.includes('ENOENT') ? 'nvidia-smi is not installed' : child.error.message,
    };
  const mhz = parseMemoryClockMHz(child.stdout ?? '');
  return mhz === undefined
    ? { ok: false, reason: `nvidia-smi gave no memory clock (exit ${child.status ?? 'signal'})` }
    : { ok: true, value: mhz * 1e3 };
}
