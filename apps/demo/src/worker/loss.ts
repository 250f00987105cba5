// "Lose the GPU" in the engine worker: runs the workload if the user has not started it, waits until WebGPU is
// answering its calls, destroys the real GPUDevice right after a call is issued, and tells the page each stage. A
// workload the user started keeps running afterwards; one started here stops RUN_ON_AFTER_LOSS_MS after the loss.
import { loseGpuDevice, type DemoEngine } from '../engine-setup.ts';
import type { Workload, WorkloadStats } from '../panels/workload.ts';
import type { Replies, WorkerEvent } from './protocol.ts';

/** How long a workload started for the loss keeps going after it, ms. */
const RUN_ON_AFTER_LOSS_MS = 6000;
/** WebGPU calls to see before the loss, so the chart shows the switch from GPU to CPU. */
const GPU_CALLS_BEFORE_LOSS = 6;
/** How long to wait for the workload to reach the GPU before destroying the device anyway, ms. */
const WAIT_FOR_GPU_MS = 15_000;
/** How long to wait for the workload's next call to lose the device in, ms (a sweep's long calls share the worker). */
const WAIT_FOR_CALL_MS = 120_000;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Loses the device mid-workload; resolves once it is destroyed (or there was none). */
export async function loseGpuDuringWorkload(
  demo: DemoEngine,
  workload: Workload,
  send: (event: WorkerEvent) => void,
): Promise<Replies['loseGpu']> {
  if (demo.webgpu === undefined || !demo.webgpuStatus.available)
    return {
      destroyed: false,
      note: 'No WebGPU device here, so there is nothing to lose: everything already runs on the CPU.',
    };
  const ours = !workload.active;
  const onStep = (stats: WorkloadStats): void => send({ event: 'workload', stats, running: workload.active });
  workload.start(onStep);
  send({ event: 'loss', state: 'waiting', note: 'Waiting for the workload to reach the GPU…' });
  const reached = await until(
    () => (workload.stats().answeredBy['webgpu'] ?? 0) >= GPU_CALLS_BEFORE_LOSS,
    WAIT_FOR_GPU_MS,
  );
  let note: string | undefined;
  let destroyed = false;
  workload.armDuringNextCall(() => {
    const before = workload.stats();
    destroyed = loseGpuDevice(demo);
    note = destroyed
      ? `GPUDevice destroyed with a call in flight, after ${before.steps} steps (${before.answeredBy['webgpu'] ?? 0} calls on WebGPU${reached ? '' : ', none had reached it yet'}). `
      : 'There was no current GPUDevice to destroy. ';
  });
  await until(() => note !== undefined, WAIT_FOR_CALL_MS);
  const said = note ?? 'The workload made no call to lose the device in. ';
  send({ event: 'loss', state: 'lost', note: said });
  setTimeout(() => {
    void (ours ? workload.stop() : Promise.resolve()).then(() => {
      send({ event: 'workload', stats: workload.stats(), running: workload.active });
      send({ event: 'loss', state: 'done', note: said });
    });
  }, RUN_ON_AFTER_LOSS_MS);
  return { destroyed, note: said };
}
