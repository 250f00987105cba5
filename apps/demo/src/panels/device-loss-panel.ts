// "Lose the GPU" and the workload toggle: both run in the engine worker (loss.ts there); this panel sends the clicks
// and shows what the worker reports: calls answered per backend, re-runs, errors seen (expected: none).
import { byId } from '../dom.ts';
import type { EngineClient } from '../worker/client.ts';
import type { Replies } from '../worker/protocol.ts';
import type { WorkloadStats } from './workload.ts';

function summary(stats: WorkloadStats): string {
  const by =
    Object.entries(stats.answeredBy)
      .map(([backend, n]) => `${backend} ${n}`)
      .join(', ') || 'none yet';
  const reruns =
    stats.reruns.count === 0
      ? ''
      : `; ${stats.reruns.count} step(s) re-run from host data because their intermediate results were on the lost device (${stats.reruns.firstCause ?? ''})`;
  return `${stats.steps} workload steps; calls answered by ${by}; errors reaching the page: ${stats.errors.length}${stats.errors.length > 0 ? ` (${stats.errors[0] ?? ''})` : ''}${reruns}`;
}

/** Wires the workload and device-loss buttons (the loss button stays off without a WebGPU device). */
export function setUpDeviceLossPanel(client: EngineClient, info: Replies['start']): void {
  const toggle = byId('workload-toggle', HTMLButtonElement);
  const lose = byId('lose-gpu', HTMLButtonElement);
  const status = byId('device-loss-status', HTMLParagraphElement);
  let running = false;
  let lossNote = '';
  let last: WorkloadStats | undefined;
  /** The toggle says what a click will do: it follows the workload, whoever started it ("Lose the GPU" does too). */
  const showRunning = (now: boolean): void => {
    running = now;
    toggle.textContent = running ? 'Stop workload' : 'Start workload';
    toggle.dataset['running'] = String(running);
  };
  const show = (): void => {
    if (last === undefined) return;
    status.textContent = `${lossNote}${summary(last)}`;
    status.dataset['errors'] = String(last.errors.length);
    status.dataset['reruns'] = String(last.reruns.count);
  };
  client.on((event) => {
    if (event.event === 'workload') {
      last = event.stats;
      show();
      if (!toggle.disabled) showRunning(event.running);
    } else if (event.event === 'loss') {
      lossNote = event.note;
      status.dataset['state'] = event.state;
      if (event.state === 'waiting') status.textContent = event.note;
      else show();
      if (event.state === 'done') lose.disabled = false;
    }
  });

  toggle.disabled = false;
  toggle.addEventListener('click', () => {
    toggle.disabled = true;
    void client.call('workload', { run: !running }).then((answer) => {
      showRunning(answer.running);
      toggle.disabled = false;
    });
  });

  const gpu = info.backends.find((b) => b.name === 'webgpu');
  if (gpu === undefined || !gpu.available) {
    lose.disabled = true;
    lose.title = 'No WebGPU device on this page';
    status.textContent = 'No WebGPU device here, so there is nothing to lose: everything already runs on the CPU.';
    return;
  }
  lose.disabled = false;
  lose.addEventListener('click', () => {
    lose.disabled = true;
    void client.call('loseGpu', {}).then((answer) => {
      if (!answer.destroyed) {
        status.textContent = answer.note;
        lose.disabled = false;
      }
    });
  });
}
