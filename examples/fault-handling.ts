// Fault handling: a "GPU" that fails a third of its calls. Every call still answers; the failures are events with
// their errors, the circuit opens, and the notices say so.
import { Engine, type NoticeEvent } from 'tandem';
import { FaultInjectingBackend, faultRate } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';

const gpu = new FaultInjectingBackend(new WasmBackend(), faultRate(0.33, ['reject', 'device-lost'], 3), {
  name: 'flaky-gpu',
  kind: 'gpu',
});
const engine = await Engine.create({
  backends: [gpu, new WasmBackend()],
  strategy: 'gpu-preferred',
  tracker: { minCalls: 10 },
});
const notices: NoticeEvent[] = [];
engine.telemetry.subscribeNotices((n) => notices.push(n));
const x = engine.random([128, 128], { seed: 4 });
for (let i = 0; i < 30; i++) (await engine.matmul(x, x)).dispose();
const failed = engine.telemetry.opEvents().filter((e) => !e.ok);
console.log(`${gpu.totalInjected} faults injected, ${failed.length} failed attempts, all 30 calls answered`);
console.log(failed[0]?.error);
console.log(engine.trackerStats().find((s) => s.backend === 'flaky-gpu'));
console.log(notices.map((n) => `${n.kind} ${n.backend} ${n.detail}`));
await engine.dispose();
