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
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const keepAlive = setInterval(() => {}, 50);
const gpu = create(['disable-dawn-features=timestamp_quantization']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const limits = adapter.limits;
const device = await adapter.requestDevice({ requiredFeatures: ['timestamp-query'], requiredLimits: { maxBufferSize: limits.maxBufferSize, maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize } });
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
device.addEventListener?.('uncapturederror', (e) => console.log('uncaptured:', e.error?.message));
process.on('unhandledRejection', (e) => { console.log('rejection:', e?.message ?? e); process.exit(1); });
console.log(`maxBufferSize ${limits.maxBufferSize}, maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`);
const pipe = (code) => device.createComputePipeline({ layout: 'auto', compute: { entryPoint: 'main', module: device.createShaderModule({ code }) } });
const fill = pipe(`@group(0) @binding(0) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u; if (i >= arrayLength(&dst)) { return; }
  var h = i * 747796405u + 2891336453u; h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u; h = (h >> 22u) ^ h;
  dst[i] = f32(h) * (2.0 / 4294967296.0) - 1.0; }`);
const read = pipe(`@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let w = wid.x + wid.y * nwg.x; let n = arrayLength(&src); var acc = vec4f(0.0);
  for (var i = w * 1536u + lid; i < min(n, (w + 1u) * 1536u); i += 256u) { acc += src[i]; }
  let s = acc.x + acc.y + acc.z + acc.w; if (s == 123.456) { sink[lid] = s; } }`);
const grid = (g) => { const x = Math.min(g, limits.maxComputeWorkgroupsPerDimension); return [x, Math.ceil(g / x)]; };
const qs = device.createQuerySet({ type: 'timestamp', count: 2 });
const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const sink = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
async function timeRead(buffer, offset, size) {
  const bind = device.createBindGroup({ layout: read.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer, offset, size } }, { binding: 1, resource: { buffer: sink } }] });
  const times = [];
  for (let r = 0; r < 10; r++) {
    const e = device.createCommandEncoder();
    const p = e.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } });
    p.setPipeline(read); p.setBindGroup(0, bind); const [x, y] = grid(Math.ceil(size / 24576)); p.dispatchWorkgroups(x, y); p.end();
    e.resolveQuerySet(qs, 0, 2, resolve, 0); e.copyBufferToBuffer(resolve, 0, readback, 0, 16); device.queue.submit([e.finish()]);
    await readback.mapAsync(GPUMapMode.READ); const [a, b] = new BigUint64Array(readback.getMappedRange().slice(0)); readback.unmap();
    if (r > 0) times.push(Number(b - a) / 1e6);
  }
  times.sort((x, y) => x - y); const ms = times[4];
  return `${(size / ms / 1e6).toFixed(0)} GB/s`;
}
async function fillRange(buffer, offset, size) {
  const e = device.createCommandEncoder(); const p = e.beginComputePass(); p.setPipeline(fill);
  p.setBindGroup(0, device.createBindGroup({ layout: fill.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer, offset, size } }] }));
  const [x, y] = grid(Math.ceil(size / 4 / 256)); p.dispatchWorkgroups(x, y); p.end(); device.queue.submit([e.finish()]); await device.queue.onSubmittedWorkDone();
}
const ownStagingMode = process.argv.includes('--own-staging');
const upload = process.argv.includes('--upload') || process.argv.includes('--upload-wait') || ownStagingMode;
const waitEach = process.argv.includes('--upload-wait');
const piece = 64 * 2 ** 20;
const host = upload ? new Uint8Array(piece) : undefined;
if (host) { const f = new Float32Array(host.buffer); for (let i = 0; i < f.length; i++) f[i] = Math.random() * 2 - 1; }
let ownStaging;
async function write(buffer, offset, size) {
  if (!upload) { await fillRange(buffer, offset, size); return; }
  if (ownStagingMode) {
    ownStaging ??= device.createBuffer({ size: piece, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC });
    for (let at = 0; at < size; at += piece) {
      const n = Math.min(piece, size - at);
      await ownStaging.mapAsync(GPUMapMode.WRITE, 0, n).catch((e) => { console.log('mapAsync failed at', at, e?.message); throw e; });
      new Uint8Array(ownStaging.getMappedRange(0, n)).set(host.subarray(0, n));
      ownStaging.unmap();
      const e = device.createCommandEncoder(); e.copyBufferToBuffer(ownStaging, 0, buffer, offset + at, n); device.queue.submit([e.finish()]);
    }
    await device.queue.onSubmittedWorkDone();
    return;
  }
  for (let at = 0; at < size; at += piece) {
    device.queue.writeBuffer(buffer, offset + at, host, 0, Math.min(piece, size - at));
    if (waitEach) await device.queue.onSubmittedWorkDone();
  }
  await device.queue.onSubmittedWorkDone();
}
const ROW = 768 * 4;
const rangeRows = Math.floor(limits.maxStorageBufferBindingSize / ROW / 64) * 64; // 256-byte aligned ranges
const range = rangeRows * ROW;
const total = 1_000_000 * ROW;
console.log(`data ${upload ? `uploaded (${ownStagingMode ? 'one MAP_WRITE staging buffer of 64 MiB, mapped and copied per piece' : `writeBuffer, 64 MiB pieces${waitEach ? ', waiting for each' : ''}`})` : 'filled by a kernel'}; range ${range} bytes`);
const small = device.createBuffer({ size: range, usage: STORAGE });
await write(small, 0, range);
console.log(`separate buffer of one range (${(range / 1e9).toFixed(2)} GB): read ${await timeRead(small, 0, range)}`);
const big = device.createBuffer({ size: total, usage: STORAGE });
await write(big, 0, range); await write(big, range, total - range);
console.log(`3.07 GB buffer, range 0 (${(range / 1e9).toFixed(2)} GB): read ${await timeRead(big, 0, range)}; range 1 (${((total - range) / 1e9).toFixed(2)} GB at ${range}): read ${await timeRead(big, range, total - range)}`);
console.log(`the first separate buffer again, after the big one's writes: read ${await timeRead(small, 0, range)}`);
big.destroy();
small.destroy();
const again = device.createBuffer({ size: range, usage: STORAGE });
await write(again, 0, range);
console.log(`separate buffer again, after the big one: read ${await timeRead(again, 0, range)}`);
device.destroy();
clearInterval(keepAlive);
