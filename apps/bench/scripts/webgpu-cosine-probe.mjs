// Diagnostic (GPU machine): the cosine kernels alone (wgsl/cosine_similarity*.wgsl, one 768-d query) over N random
// targets, for several workgroup shapes (WG invocations, LANES per score), beside a plain read of the same bytes
// (one workgroup per 24 KiB) — to find where the kernel leaves the memory bandwidth. Time from pass timestamps
// (Dawn's timestamp quantization off), median of 9 after one warm-up.
//   source .gpukit/setup.sh && node apps/bench/scripts/webgpu-cosine-probe.mjs [--upload [--kernel-copy]] [--churn] [--gap-ms=N]
// --upload writes the targets from the host (queue.writeBuffer in 64 MiB pieces) instead of a fill
// kernel; --churn first allocates, writes and frees ~6 GB of buffers of mixed sizes (as the webgpu bench suite's
// matmul sweep and copy peak do before its cosine sweep); --gap-ms=N lets the GPU idle N ms between timed passes
// (as a bench that checks each result on the CPU does).
import { readFileSync } from 'node:fs';
import { FILL_WGSL, READ_BYTES_PER_GROUP, READ_WGSL, grid as gridIn, openProbeDevice, passTimer, pipeline } from './webgpu-probe-device.mjs';

const { device, limits } = await openProbeDevice();
const DIM = 768;
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const fill = pipeline(device, FILL_WGSL);
const read = pipeline(device, READ_WGSL);
const grid = (groups) => gridIn(limits, groups);
const gapArg = process.argv.find((a) => a.startsWith('--gap-ms='));
const gapMs = gapArg === undefined ? 0 : Number(gapArg.slice('--gap-ms='.length));
const timePass = passTimer(device, gapMs);

const shaders = {
  vec4: readFileSync('wgsl/cosine_similarity_vec4.wgsl', 'utf8'),
  scalar: readFileSync('wgsl/cosine_similarity.wgsl', 'utf8'),
};
const variants = [
  ['vec4', 256, 32],
  ['vec4', 256, 16],
  ['vec4', 256, 8],
  ['vec4', 128, 32],
  ['scalar', 256, 32],
];
const modules = Object.fromEntries(Object.entries(shaders).map(([k, code]) => [k, device.createShaderModule({ code })]));
const sink = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
const q = device.createBuffer({ size: DIM * 4, usage: STORAGE });
device.queue.writeBuffer(q, 0, Float32Array.from({ length: DIM }, (_, i) => Math.sin(i)));

const upload = process.argv.includes('--upload');
const kernelCopy = process.argv.includes('--kernel-copy');
const copyPipeline = pipeline(device, `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}`);
if (gapMs > 0) console.log(`the GPU idles ${gapMs} ms between timed passes`);
if (process.argv.includes('--churn')) {
  const held = [];
  for (let i = 0; i < 160; i++) {
    const size = (1 + ((i * 37) % 64)) * 2 ** 20;
    const b = device.createBuffer({ size, usage: STORAGE });
    device.queue.writeBuffer(b, 0, new Uint8Array(size).fill(i));
    held.push(b);
  }
  for (const [i, b] of held.entries()) if (i % 2 === 0) b.destroy();
  const big = [device.createBuffer({ size: 2 ** 30, usage: STORAGE }), device.createBuffer({ size: 2 ** 30, usage: STORAGE })];
  const e = device.createCommandEncoder();
  e.copyBufferToBuffer(big[0], 0, big[1], 0, 2 ** 30);
  device.queue.submit([e.finish()]);
  await device.queue.onSubmittedWorkDone();
  for (const b of big) b.destroy();
  console.log('churn: 160 buffers of 1-64 MiB written, half freed; 2 x 1 GiB copied and freed');
}
console.log(`targets ${upload ? `uploaded with writeBuffer${kernelCopy ? ' into staging, copied in by a kernel' : ''}` : 'filled by a kernel'}`);
for (const n of [65536, 262144, 699050]) {
  const bytes = n * DIM * 4;
  const targets = device.createBuffer({ size: bytes, usage: STORAGE });
  const out = device.createBuffer({ size: n * 4, usage: STORAGE });
  if (upload) {
    const host = new Float32Array(n * DIM);
    for (let i = 0; i < host.length; i++) host[i] = Math.random() * 2 - 1;
    // In 64 MiB pieces; with --kernel-copy each piece goes to a staging buffer and a compute kernel copies it in.
    const piece = 16 * 2 ** 20;
    const staging = kernelCopy ? device.createBuffer({ size: piece * 4, usage: STORAGE }) : undefined;
    for (let at = 0; at < host.length; at += piece) {
      const count = Math.min(piece, host.length - at);
      if (staging === undefined) {
        device.queue.writeBuffer(targets, at * 4, host.buffer, at * 4, count * 4);
        continue;
      }
      device.queue.writeBuffer(staging, 0, host.buffer, at * 4, count * 4);
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(copyPipeline);
      pass.setBindGroup(0, device.createBindGroup({ layout: copyPipeline.getBindGroupLayout(0), entries: [
        { binding: 0, resource: { buffer: staging, size: count * 4 } },
        { binding: 1, resource: { buffer: targets, offset: at * 4, size: count * 4 } },
      ] }));
      const [x, y] = grid(Math.ceil(count / 256));
      pass.dispatchWorkgroups(x, y);
      pass.end();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
    }
    await device.queue.onSubmittedWorkDone();
    staging?.destroy();
  } else {
    const bind = device.createBindGroup({ layout: fill.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: targets } }] });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(fill);
    pass.setBindGroup(0, bind);
    const [x, y] = grid(Math.ceil(n * DIM / 256));
    pass.dispatchWorkgroups(x, y);
    pass.end();
    device.queue.submit([encoder.finish()]);
  }
  const readBind = device.createBindGroup({ layout: read.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: targets } }, { binding: 1, resource: { buffer: sink } }] });
  const plain = await timePass((pass) => {
    pass.setPipeline(read);
    pass.setBindGroup(0, readBind);
    const [x, y] = grid(Math.ceil(bytes / READ_BYTES_PER_GROUP));
    pass.dispatchWorkgroups(x, y);
  });
  const parts = [`N=${n} (${(bytes / 1e6).toFixed(0)} MB): plain read ${(bytes / plain / 1e6).toFixed(0)} GB/s`];
  for (const [shader, wg, lanes] of variants) {
    const variant = device.createComputePipeline({ layout: 'auto', compute: { module: modules[shader], entryPoint: 'main', constants: { WG: wg, LANES: lanes } } });
    const params = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(params, 0, new Uint32Array([1, n, DIM, n, 0, 0, 0, 0]));
    const bind = device.createBindGroup({
      layout: variant.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: q } },
        { binding: 1, resource: { buffer: targets } },
        { binding: 2, resource: { buffer: out } },
        { binding: 3, resource: { buffer: params } },
      ],
    });
    const ms = await timePass((pass) => {
      pass.setPipeline(variant);
      pass.setBindGroup(0, bind);
      const [x, y] = grid(Math.ceil(n / (wg / lanes)));
      pass.dispatchWorkgroups(x, y);
    });
    parts.push(`${shader} WG${wg}/L${lanes} ${(bytes / ms / 1e6).toFixed(0)}`);
    params.destroy();
  }
  console.log(parts.join('; '));
  targets.destroy();
  out.destroy();
}
device.destroy();
