// What the process boundary costs: an empty round trip, a tiny op end to end, and moving 16 MB each way,
// through the GPU process and in-process on the same device (SwiftShader unless TANDEM_TEST_GPU=native).
//   node -C @tandem/source --import tsx apps/bench/probes/webgpu-process-overhead.ts
import { median, type CapableBackend, type DeviceBuffer, type TensorSpec } from '@tandem/core';
import { createNodeWebGpuBackend, createProcessWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';

const native = process.env['TANDEM_TEST_GPU'] === 'native';
if (!native) {
  const software = useSwiftShader();
  if (!software.ok) {
    console.log(`skipped: ${software.reason}`);
    process.exit(0);
  }
}

/** Median of `runs` timings of `fn`, ms, after `warmup` untimed calls. */
async function medianMs(runs: number, fn: () => Promise<void>, warmup = 2): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const BIG: TensorSpec = { dtype: 'f32', shape: [4 * 1024 * 1024] }; // 16 MiB
const bigBytes = new Uint8Array(16 * 1024 * 1024).fill(7);
const tiny: TensorSpec = { dtype: 'f32', shape: [4] };
const tinyBytes = new Uint8Array(16);

async function measure(backend: CapableBackend): Promise<Record<string, number>> {
  const init = await backend.init();
  if (!init.ok) throw new Error(init.reason);
  const tinyOp = await medianMs(200, async () => {
    const x = await backend.upload(tinyBytes, tiny);
    const result = await backend.run({ op: 'silu', x: { ...tiny, buffer: x } }, [tiny]);
    const out = result.outputs[0];
    if (out === undefined) throw new Error('no output');
    await backend.download(out);
    backend.free(out);
    backend.free(x);
  });
  let resident: DeviceBuffer | undefined;
  const upload16 = await medianMs(7, async () => {
    if (resident !== undefined) backend.free(resident);
    resident = await backend.upload(bigBytes, BIG);
  });
  const held = resident;
  if (held === undefined) throw new Error('no buffer');
  const download16 = await medianMs(7, async () => {
    await backend.download(held);
  });
  backend.free(held);
  return { 'tiny op (upload + silu + download)': tinyOp, 'upload 16 MiB': upload16, 'download 16 MiB': download16 };
}

const inProcess = createNodeWebGpuBackend();
const proxy = createProcessWebGpuBackend({ swiftShader: !native, stderr: 'capture' });
try {
  const local = await measure(inProcess);
  const remote = await measure(proxy);
  const ping = await medianMs(
    2000,
    async () => {
      await proxy.init(); // alive and initialised: one 'init' + one 'describe' round trip
    },
    50,
  );
  console.log(`device: ${proxy.describe().name}`);
  console.log(
    `round trip to the GPU process (init on a live child = 2 requests): ${((ping / 2) * 1000).toFixed(0)} us per request; startup ping ${(proxy.roundTripMs() * 1000).toFixed(0)} us`,
  );
  console.log('| what | in-process ms | GPU process ms | overhead ms |');
  console.log('| --- | --- | --- | --- |');
  for (const [what, ms] of Object.entries(local)) {
    const other = remote[what] ?? NaN;
    console.log(`| ${what} | ${ms.toFixed(2)} | ${other.toFixed(2)} | ${(other - ms).toFixed(2)} |`);
  }
} finally {
  await proxy.dispose();
  await inProcess.dispose();
}
