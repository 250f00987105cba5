// "Lose the GPU": starts the workload if needed, waits until WebGPU is answering its calls, destroys the real
// GPUDevice, and reports what happened next: calls answered on the CPU, fallbacks, and errors seen (expected: none).
import type { Engine } from '@tandem/core';
import { byId } from '../dom.ts';
import { loseGpuDevice, type DemoEngine } from '../engine-setup.ts';
import { Workload, type WorkloadStats } from './workload.ts';

/** How long the workload keeps going after the loss before it stops by itself, ms. */
const RUN_ON_AFTER_LOSS_MS = 6000;
/** WebGPU calls to see before the loss, so the chart shows the switch from GPU to CPU. */
const GPU_CALLS_BEFORE_LOSS = 6;
/** How long to wait for the workload to reach the GPU before destroying the device anyway, ms. */
const WAIT_FOR_GPU_MS = 15_000;

function summary(stats: WorkloadStats): string {
  const by = Object.entries(stats.answeredBy).map(([backend, n]) => `${backend} ${n}`).join(', ') || 'none yet';
  const reruns = stats.reruns.count === 0 ? '' : `; ${stats.reruns.count} step(s) re-run from host data because their intermediate results were on the lost device (${stats.reruns.firstCause ?? ''})`;
  return `${stats.steps} workload steps; calls answered by ${by}; errors reaching the page: ${stats.errors.length}${stats.errors.length > 0 ? ` (${stats.errors[0] ?? ''})` : ''}${reruns}`;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Wires the workload and device-loss buttons (the loss button stays off without a WebGPU device). */
export function setUpDeviceLossPanel(demo: DemoEngine, engine: Engine, vectors: Float32Array, dim: number): void {
  const toggle = byId('workload-toggle', HTMLButtonElement);
  const lose = byId('lose-gpu', HTMLButtonElement);
  const status = byId('device-loss-status', HTMLParagraphElement);
  const workload = new Workload(engine, vectors, dim);
  let lossNote = '';
  const onStep = (stats: WorkloadStats): void => {
    status.textContent = `${lossNote}${summary(stats)}`;
    status.dataset['errors'] = String(stats.errors.length);
    status.dataset['reruns'] = String(stats.reruns.count);
  };
  const refreshToggle = (): void => {
    toggle.textContent = workload.active ? 'Stop workload' : 'Start workload';
  };

  toggle.disabled = false;
  toggle.addEventListener('click', () => {
    if (workload.active) void workload.stop().then(refreshToggle);
    else workload.start(onStep);
    refreshToggle();
  });

  if (demo.webgpu === undefined || !demo.webgpuStatus.available) {
    lose.disabled = true;
    lose.title = 'No WebGPU device on this page';
    status.textContent = 'No WebGPU device here, so there is nothing to lose: everything already runs on the CPU.';
    return;
  }
  lose.disabled = false;
  lose.addEventListener('click', () => {
    void (async () => {
      lose.disabled = true;
      workload.start(onStep);
      refreshToggle();
      status.dataset['state'] = 'waiting';
      const reached = await until(() => (workload.stats().answeredBy['webgpu'] ?? 0) >= GPU_CALLS_BEFORE_LOSS, WAIT_FOR_GPU_MS);
      let destroyed: boolean | undefined;
      workload.armDuringNextCall(() => {
        const before = workload.stats();
        destroyed = loseGpuDevice(demo);
        lossNote = destroyed
          ? `GPUDevice destroyed with a call in flight, after ${before.steps} steps (${before.answeredBy['webgpu'] ?? 0} calls on WebGPU${reached ? '' : ', none had reached it yet'}). `
          : 'There was no current GPUDevice to destroy. ';
      });
      await until(() => destroyed !== undefined, WAIT_FOR_GPU_MS);
      status.dataset['state'] = destroyed === true ? 'lost' : 'no-device';
      onStep(workload.stats());
      setTimeout(() => {
        void workload.stop().then(() => {
          refreshToggle();
          status.dataset['state'] = 'done';
          lose.disabled = false;
        });
      }, RUN_ON_AFTER_LOSS_MS);
    })();
  });
}
