// CPU time of the calling thread (Linux: /proc/self/task/<tid>/schedstat, ns precision), to measure what
// waiting on the GPU costs the JS thread alone — SwiftShader's own worker threads run in the same process,
// so process.cpuUsage() would count the "GPU" work too.
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** Milliseconds of CPU the JS main thread has used, or undefined where that can't be read. */
export function mainThreadCpuMs(): number | undefined {
  if (!isMainThread || process.platform !== 'linux') return undefined;
  try {
    const [runNs] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
    return Number(runNs) / 1e6;
  } catch {
    return undefined;
  }
}
