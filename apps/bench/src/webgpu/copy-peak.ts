// The device's memory bandwidth ceiling, measured cheaply: one submission of several large buffer-to-buffer copies
// on the backend's own device, timed around submit and completion; each copy reads and writes its bytes.
import { monotonicClock, sampleStats } from '@tandem/core';

/** GPUBufferUsage bits (WebGPU spec values; no globals needed). */
const COPY_SRC = 0x4;
const COPY_DST = 0x8;

/** The measured copy rate. */
export interface CopyPeak {
  /** Read + write bytes per second, TB/s (median of the submissions). */
  readonly tbps: number;
  /** Bytes per copy. */
  readonly bytes: number;
  /** Copies per submission. */
  readonly copies: number;
}

/** Copies `bytes` `copies` times per submission, `reps` submissions; the median rate counting read + write. */
export async function measureCopyPeak(device: GPUDevice, bytes: number, copies = 8, reps = 3): Promise<CopyPeak> {
  const src = device.createBuffer({ size: bytes, usage: COPY_SRC });
  const dst = device.createBuffer({ size: bytes, usage: COPY_DST });
  try {
    const rates: number[] = [];
    for (let r = 0; r <= reps; r++) {
      const encoder = device.createCommandEncoder({ label: 'copy-peak' });
      for (let c = 0; c < copies; c++) encoder.copyBufferToBuffer(src, 0, dst, 0, bytes);
      const t0 = monotonicClock();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const ms = monotonicClock() - t0;
      if (r > 0) rates.push((2 * bytes * copies) / ms / 1e9); // the first submission warms up
    }
    return { tbps: sampleStats(rates).median, bytes, copies };
  } finally {
    src.destroy();
    dst.destroy();
  }
}
