// What the WebGPU diagnostics in this folder (webgpu-cosine-probe.mjs, webgpu-upload-probe.mjs) share: a Dawn
// device with the adapter's largest buffer limits and unquantized timestamps, a pipeline from WGSL, the dispatch
// grid, a kernel that fills a buffer with pseudo-random floats, a plain vec4 read of a buffer, and pass timing.
import { median } from '@tandem/core';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

/**
 * The Dawn instance, held for the life of the process: dawn.node tears the instance down when it is collected, and a
 * device outliving it aborts the process ("The futex facility returned an unexpected error code").
 */
let instance;

/** The high-performance adapter's device with timestamp queries and its largest buffer and binding sizes. */
export async function openProbeDevice() {
  instance ??= create(['disable-dawn-features=timestamp_quantization']);
  const gpu = instance;
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  const limits = adapter.limits;
  const device = await adapter.requestDevice({
    requiredFeatures: ['timestamp-query'],
    requiredLimits: {
      maxBufferSize: limits.maxBufferSize,
      maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    },
  });
  return { device, limits };
}

/** A compute pipeline of `code`'s `main` (with pipeline-overridable `constants`, if any). */
export function pipeline(device, code, constants) {
  return device.createComputePipeline({
    layout: 'auto',
    compute: { entryPoint: 'main', module: device.createShaderModule({ code }), ...(constants ? { constants } : {}) },
  });
}

/** [x, y] workgroup counts covering `groups` within the per-dimension limit. */
export function grid(limits, groups) {
  const x = Math.min(groups, limits.maxComputeWorkgroupsPerDimension);
  return [x, Math.ceil(groups / x)];
}

/** dst[i] = a hash of i mapped to [-1, 1): random-looking data written by the GPU itself (workgroups of 256). */
export const FILL_WGSL = `
@group(0) @binding(0) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= arrayLength(&dst)) { return; }
  var h = i * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  h = (h >> 22u) ^ h;
  dst[i] = f32(h) * (2.0 / 4294967296.0) - 1.0;
}`;

/** Bytes one workgroup of READ_WGSL reads. */
export const READ_BYTES_PER_GROUP = 24576;

/** Sums src as vec4s, 1,536 per workgroup (24 KiB), and writes nothing unless the sum is exactly 123.456. */
export const READ_WGSL = `
@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let w = wid.x + wid.y * nwg.x;
  let n = arrayLength(&src);
  var acc = vec4f(0.0);
  for (var i = w * 1536u + lid; i < min(n, (w + 1u) * 1536u); i += 256u) { acc += src[i]; }
  let s = acc.x + acc.y + acc.z + acc.w;
  if (s == 123.456) { sink[lid] = s; }
}`;

/** Median GPU time (ms, pass timestamps) of `encode(pass)` over 9 runs after a warm-up; `gapMs` idles between runs. */
export function passTimer(device, gapMs = 0) {
  const query = device.createQuerySet({ type: 'timestamp', count: 2 });
  const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  return async (encode) => {
    const times = [];
    for (let r = 0; r < 10; r++) {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass({
        timestampWrites: { querySet: query, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
      });
      encode(pass);
      pass.end();
      encoder.resolveQuerySet(query, 0, 2, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, readback, 0, 16);
      device.queue.submit([encoder.finish()]);
      await readback.mapAsync(GPUMapMode.READ);
      const [a, b] = new BigUint64Array(readback.getMappedRange().slice(0));
      readback.unmap();
      if (r > 0) times.push(Number(b - a) / 1e6);
      if (gapMs > 0) await new Promise((done) => setTimeout(done, gapMs));
    }
    return median(times);
  };
}
