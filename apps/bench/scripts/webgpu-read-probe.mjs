// Diagnostic (GPU machine): read bandwidth of one WebGPU compute kernel over buffers of growing size, to tell a
// kernel limit from a memory-system one (the cosine kernel drops from 2.4 TB/s over 201 MB of targets to ~1 TB/s
// over 805 MB on an H100 through Dawn/Vulkan). For each size: a buffer of that size read whole, and (from 256 MiB
// up) the first 128 MiB of it, by a grid-stride vec4 sum over 4,224 workgroups; then read whole by one workgroup
// per 24 KiB chunk (the cosine kernel's shape: 8 rows of 768 floats per workgroup, x + y * 65535 grid); time
// from pass timestamps, median of 9.
//   source .gpukit/setup.sh && node apps/bench/scripts/webgpu-read-probe.mjs
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const gpu = create(['disable-dawn-features=timestamp_quantization']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const device = await adapter.requestDevice({
  requiredFeatures: ['timestamp-query'],
  requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize },
});
console.log(`adapter ${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}; maxBufferSize ${adapter.limits.maxBufferSize}, binding ${adapter.limits.maxStorageBufferBindingSize}`);

const code = `
@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@group(0) @binding(2) var<uniform> count: vec4u;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let stride = nwg.x * 256u;
  var acc = vec4f(0.0);
  for (var i = gid.x; i < count.x; i += stride) { acc += src[i]; }
  let s = acc.x + acc.y + acc.z + acc.w;
  if (s == 123.456) { sink[gid.x] = s; }
}`;
const chunkedCode = `
@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@group(0) @binding(2) var<uniform> count: vec4u;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let w = wid.x + wid.y * nwg.x;
  var acc = vec4f(0.0);
  for (var i = w * 1536u + lid; i < min(count.x, (w + 1u) * 1536u); i += 256u) { acc += src[i]; }
  let s = acc.x + acc.y + acc.z + acc.w;
  if (s == 123.456) { sink[lid] = s; }
}`;
const module = device.createShaderModule({ code });
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const chunked = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: chunkedCode }), entryPoint: 'main' } });
const sink = device.createBuffer({ size: 4 * 1024 * 1024, usage: GPUBufferUsage.STORAGE });
const query = device.createQuerySet({ type: 'timestamp', count: 2 });
const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const groups = 132 * 32;

async function timeRead(buffer, bytes, pipe = pipeline) {
  const uniform = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(uniform, 0, new Uint32Array([bytes / 16, 0, 0, 0]));
  const bind = device.createBindGroup({
    layout: pipe.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer, offset: 0, size: Math.min(bytes, adapter.limits.maxStorageBufferBindingSize) } },
      { binding: 1, resource: { buffer: sink } },
      { binding: 2, resource: { buffer: uniform } },
    ],
  });
  const times = [];
  for (let r = 0; r < 10; r++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass({ timestampWrites: { querySet: query, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } });
    pass.setPipeline(pipe);
    pass.setBindGroup(0, bind);
    if (pipe === pipeline) pass.dispatchWorkgroups(groups);
    else {
      const chunks = Math.ceil(bytes / 24576);
      const x = Math.min(chunks, 65535);
      pass.dispatchWorkgroups(x, Math.ceil(chunks / x));
    }
    pass.end();
    encoder.resolveQuerySet(query, 0, 2, resolve, 0);
    encoder.copyBufferToBuffer(resolve, 0, readback, 0, 16);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const [a, b] = new BigUint64Array(readback.getMappedRange().slice(0));
    readback.unmap();
    if (r > 0) times.push(Number(b - a) / 1e6);
  }
  uniform.destroy();
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)];
}

const MiB = 2 ** 20;
const binding = adapter.limits.maxStorageBufferBindingSize;
for (const mib of [32, 64, 128, 192, 256, 384, 512, 768, 1024, 2047]) {
  const bytes = Math.min(mib * MiB, Math.floor(binding / 16) * 16);
  let buffer;
  try {
    buffer = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buffer, 0, new Uint8Array(Math.min(bytes, 64 * MiB)).fill(1)); // first part; the rest is zero-initialized
    const whole = await timeRead(buffer, bytes);
    let line = `buffer ${mib} MiB: whole ${whole.toFixed(3)} ms = ${(bytes / whole / 1e6).toFixed(0)} GB/s`;
    if (mib >= 256) {
      const part = await timeRead(buffer, 128 * MiB);
      line += `; first 128 MiB ${part.toFixed(3)} ms = ${((128 * MiB) / part / 1e6).toFixed(0)} GB/s`;
    }
    const chunk = await timeRead(buffer, bytes, chunked);
    line += `; 24 KiB per workgroup ${chunk.toFixed(3)} ms = ${(bytes / chunk / 1e6).toFixed(0)} GB/s`;
    console.log(line);
  } catch (error) {
    console.log(`buffer ${mib} MiB: ${error}`);
  } finally {
    buffer?.destroy();
  }
}
device.destroy();
