// Diagnostic (GPU machine): how uploads change the read bandwidth of a Dawn/Vulkan device. A plain vec4 read
// (timestamps, median of 9) of: a buffer of one binding's size (2.15 GB), a 1M x 768 f32 buffer (3.07 GB, read
// in two binding ranges), the first buffer again, and a new one. Data filled by a kernel, or uploaded:
//   source .gpukit/setup.sh && node apps/bench/scripts/webgpu-upload-probe.mjs [--upload | --upload-wait | --own-staging]
// --upload: queue.writeBuffer in 64 MiB pieces (as the backend does); --upload-wait: the same, waiting for the
// queue after each piece; --own-staging: one MAP_WRITE buffer mapped and copied per piece.
// H100, 2026-11-23: filled by a kernel, every read ~3.05 TB/s (the 3 GB buffer's ranges too). Uploaded, reads of
// every buffer of the process, including one uploaded earlier that had read at 3.05 TB/s, drop to ~1.62 TB/s once
// 2-5 GB have been written (4 runs: 1 already slow after 2.15 GB, 3 after 5.2 GB), with or without waiting per
// piece; a new process is fast again. --own-staging aborted dawn.node ("The futex facility returned an unexpected
// error code"). The engine's 1M cosine (1.42 TB/s, issue 4) reads its targets after their 3 GB upload.
import { FILL_WGSL, READ_BYTES_PER_GROUP, READ_WGSL, grid, openProbeDevice, passTimer, pipeline } from './webgpu-probe-device.mjs';

const { device, limits } = await openProbeDevice();
device.addEventListener?.('uncapturederror', (e) => console.log('uncaptured:', e.error?.message));
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
console.log(`maxBufferSize ${limits.maxBufferSize}, maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`);
const fill = pipeline(device, FILL_WGSL);
const read = pipeline(device, READ_WGSL);
const sink = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
const timePass = passTimer(device);

/** Read bandwidth of buffer[offset, offset + size). */
async function timeRead(buffer, offset, size) {
  const bind = device.createBindGroup({ layout: read.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer, offset, size } }, { binding: 1, resource: { buffer: sink } }] });
  const ms = await timePass((pass) => {
    pass.setPipeline(read);
    pass.setBindGroup(0, bind);
    const [x, y] = grid(limits, Math.ceil(size / READ_BYTES_PER_GROUP));
    pass.dispatchWorkgroups(x, y);
  });
  return `${(size / ms / 1e6).toFixed(0)} GB/s`;
}

async function fillRange(buffer, offset, size) {
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(fill);
  pass.setBindGroup(0, device.createBindGroup({ layout: fill.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer, offset, size } }] }));
  const [x, y] = grid(limits, Math.ceil(size / 4 / 256));
  pass.dispatchWorkgroups(x, y);
  pass.end();
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
}

const ownStaging = process.argv.includes('--own-staging');
const waitEach = process.argv.includes('--upload-wait');
const upload = process.argv.includes('--upload') || waitEach || ownStaging;
const PIECE = 64 * 2 ** 20;
const host = new Uint8Array(upload ? PIECE : 0);
const hostFloats = new Float32Array(host.buffer);
for (let i = 0; i < hostFloats.length; i++) hostFloats[i] = Math.random() * 2 - 1;
let staging;

/** Writes buffer[offset, offset + size): a fill kernel, or the host piece uploaded over and over. */
async function write(buffer, offset, size) {
  if (!upload) return fillRange(buffer, offset, size);
  for (let at = 0; at < size; at += PIECE) {
    const n = Math.min(PIECE, size - at);
    if (ownStaging) {
      staging ??= device.createBuffer({ size: PIECE, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC });
      await staging.mapAsync(GPUMapMode.WRITE, 0, n);
      new Uint8Array(staging.getMappedRange(0, n)).set(host.subarray(0, n));
      staging.unmap();
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(staging, 0, buffer, offset + at, n);
      device.queue.submit([encoder.finish()]);
    } else {
      device.queue.writeBuffer(buffer, offset + at, host, 0, n);
      if (waitEach) await device.queue.onSubmittedWorkDone();
    }
  }
  await device.queue.onSubmittedWorkDone();
}

const ROW = 768 * 4;
const range = Math.floor(limits.maxStorageBufferBindingSize / ROW / 64) * 64 * ROW; // 256-byte aligned ranges
const total = 1_000_000 * ROW;
const how = ownStaging ? 'one MAP_WRITE staging buffer of 64 MiB, mapped and copied per piece' : `writeBuffer, 64 MiB pieces${waitEach ? ', waiting for each' : ''}`;
console.log(`data ${upload ? `uploaded (${how})` : 'filled by a kernel'}; range ${range} bytes`);
const first = device.createBuffer({ size: range, usage: STORAGE });
await write(first, 0, range);
console.log(`separate buffer of one range (${(range / 1e9).toFixed(2)} GB): read ${await timeRead(first, 0, range)}`);
const big = device.createBuffer({ size: total, usage: STORAGE });
await write(big, 0, range);
await write(big, range, total - range);
console.log(`3.07 GB buffer, range 0 (${(range / 1e9).toFixed(2)} GB): read ${await timeRead(big, 0, range)}; range 1 (${((total - range) / 1e9).toFixed(2)} GB at ${range}): read ${await timeRead(big, range, total - range)}`);
console.log(`the first separate buffer again, after the big one's writes: read ${await timeRead(first, 0, range)}`);
big.destroy();
first.destroy();
const again = device.createBuffer({ size: range, usage: STORAGE });
await write(again, 0, range);
console.log(`separate buffer again, after the big one: read ${await timeRead(again, 0, range)}`);
device.destroy();
