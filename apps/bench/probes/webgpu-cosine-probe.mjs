// Diagnostic (GPU machine): the cosine kernels alone (wgsl/cosine_similarity*.wgsl, one 768-d query) over N random
// targets, for several workgroup shapes (WG invocations, LANES per score), beside a plain read of the same bytes
// (one workgroup per 24 KiB) — to find where the kernel leaves the memory bandwidth. Time from pass timestamps
// (Dawn's timestamp quantization off), median of 9 after one warm-up.
//   source .gpukit/setup.sh && node -C @tandem/source --import tsx apps/bench/probes/webgpu-cosine-probe.mjs [--upload [--kernel-copy]] [--churn] [--gap-ms=N]
//     [--slow-mode] [--extra-shader=PATH]
// --upload writes the targets from the host (queue.writeBuffer in 64 MiB pieces) instead of a fill
// kernel; --churn first allocates, writes and frees ~6 GB of buffers of mixed sizes (as the webgpu bench suite's
// matmul sweep and copy peak do before its cosine sweep); --gap-ms=N lets the GPU idle N ms between timed passes
// (as a bench that checks each result on the CPU does); --slow-mode first writes 3.2 GB of fresh pseudo-random data
// from the host into a scratch buffer (freed after), which puts the device in the slow-read mode of
// webgpu-upload-probe.mjs; --extra-shader=PATH adds variants of another cosine kernel (same bindings and overrides).
// The plain read is also timed unrolled (each invocation issues its 6 loads before adding any).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  FILL_WGSL,
  READ_BYTES_PER_GROUP,
  READ_WGSL,
  grid as gridIn,
  openProbeDevice,
  passTimer,
  pipeline,
} from './webgpu-probe-device.mjs';

const USAGE =
  'Usage: node -C @tandem/source --import tsx apps/bench/probes/webgpu-cosine-probe.mjs [--upload [--kernel-copy]] [--churn] [--gap-ms N] [--slow-mode] [--extra-shader PATH] (see the top of the file)';
let args;
try {
  args = parseArgs({
    options: {
      upload: { type: 'boolean' },
      'kernel-copy': { type: 'boolean' },
      churn: { type: 'boolean' },
      'gap-ms': { type: 'string' },
      'slow-mode': { type: 'boolean' },
      'extra-shader': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const gapMs = Number(args['gap-ms'] ?? 0);
if (!Number.isFinite(gapMs) || gapMs < 0) {
  console.error(`--gap-ms ${args['gap-ms']}: must be a number of ms >= 0`);
  process.exit(2);
}

const { device, limits } = await openProbeDevice();
const DIM = 768;
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const fill = pipeline(device, FILL_WGSL);
const read = pipeline(device, READ_WGSL);
const grid = (groups) => gridIn(limits, groups);
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
if (args['extra-shader'] !== undefined) {
  shaders.extra = readFileSync(args['extra-shader'], 'utf8');
  variants.push(
    ['extra', 256, 16],
    ['extra', 256, 8],
    ['extra', 128, 16],
    ['extra', 128, 8],
    ['extra', 64, 8],
    ['extra', 128, 4],
    ['extra', 64, 4],
    ['extra', 32, 8],
  );
}
/** READ_WGSL with each invocation's 6 loads issued before any is added. */
const READ_UNROLLED_WGSL = `
@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let base = (wid.x + wid.y * nwg.x) * 1536u + lid;
  let last = arrayLength(&src) - 1u;
  let v0 = src[min(base, last)];
  let v1 = src[min(base + 256u, last)];
  let v2 = src[min(base + 512u, last)];
  let v3 = src[min(base + 768u, last)];
  let v4 = src[min(base + 1024u, last)];
  let v5 = src[min(base + 1280u, last)];
  let acc = v0 + v1 + v2 + v3 + v4 + v5;
  let s = acc.x + acc.y + acc.z + acc.w;
  if (s == 123.456) { sink[lid] = s; }
}`;
const readUnrolled = pipeline(device, READ_UNROLLED_WGSL);
const modules = Object.fromEntries(
  Object.entries(shaders).map(([k, code]) => [k, device.createShaderModule({ code })]),
);
const sink = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
const q = device.createBuffer({ size: DIM * 4, usage: STORAGE });
device.queue.writeBuffer(
  q,
  0,
  Float32Array.from({ length: DIM }, (_, i) => Math.sin(i)),
);

const upload = args.upload === true;
const kernelCopy = args['kernel-copy'] === true;
const copyPipeline = pipeline(
  device,
  `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}`,
);
if (args['slow-mode'] === true) {
  const total = 3.2e9;
  const piece = 64 * 2 ** 20;
  const scratch = device.createBuffer({ size: Math.ceil(total / piece) * piece, usage: STORAGE });
  const host = new Uint32Array(piece / 4);
  let state = 0x9e3779b9;
  for (let at = 0; at < total; at += piece) {
    for (let i = 0; i < host.length; i++) {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      host[i] = (state & 0x807fffff) | 0x3f000000; // floats in +-[0.5, 1)
    }
    device.queue.writeBuffer(scratch, at, host);
  }
  await device.queue.onSubmittedWorkDone();
  scratch.destroy();
  console.log(
    `slow mode: ${(total / 1e9).toFixed(1)} GB of fresh data written from the host (writeBuffer, 64 MiB pieces), buffer freed`,
  );
}
if (gapMs > 0) console.log(`the GPU idles ${gapMs} ms between timed passes`);
if (args.churn === true) {
  const held = [];
  for (let i = 0; i < 160; i++) {
    const size = (1 + ((i * 37) % 64)) * 2 ** 20;
    const b = device.createBuffer({ size, usage: STORAGE });
    device.queue.writeBuffer(b, 0, new Uint8Array(size).fill(i));
    held.push(b);
  }
  for (const [i, b] of held.entries()) if (i % 2 === 0) b.destroy();
  const big = [
    device.createBuffer({ size: 2 ** 30, usage: STORAGE }),
    device.createBuffer({ size: 2 ** 30, usage: STORAGE }),
  ];
  const e = device.createCommandEncoder();
  e.copyBufferToBuffer(big[0], 0, big[1], 0, 2 ** 30);
  device.queue.submit([e.finish()]);
  await device.queue.onSubmittedWorkDone();
  for (const b of big) b.destroy();
  console.log('churn: 160 buffers of 1-64 MiB written, half freed; 2 x 1 GiB copied and freed');
}
console.log(
  `targets ${upload ? `uploaded with writeBuffer${kernelCopy ? ' into staging, copied in by a kernel' : ''}` : 'filled by a kernel'}`,
);
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
      pass.setBindGroup(
        0,
        device.createBindGroup({
          layout: copyPipeline.getBindGroupLayout(0),
          entries: [
            { binding: 0, resource: { buffer: staging, size: count * 4 } },
            { binding: 1, resource: { buffer: targets, offset: at * 4, size: count * 4 } },
          ],
        }),
      );
      const [x, y] = grid(Math.ceil(count / 256));
      pass.dispatchWorkgroups(x, y);
      pass.end();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
    }
    await device.queue.onSubmittedWorkDone();
    staging?.destroy();
  } else {
    const bind = device.createBindGroup({
      layout: fill.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: targets } }],
    });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(fill);
    pass.setBindGroup(0, bind);
    const [x, y] = grid(Math.ceil((n * DIM) / 256));
    pass.dispatchWorkgroups(x, y);
    pass.end();
    device.queue.submit([encoder.finish()]);
  }
  const readBind = device.createBindGroup({
    layout: read.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: targets } },
      { binding: 1, resource: { buffer: sink } },
    ],
  });
  const plain = await timePass((pass) => {
    pass.setPipeline(read);
    pass.setBindGroup(0, readBind);
    const [x, y] = grid(Math.ceil(bytes / READ_BYTES_PER_GROUP));
    pass.dispatchWorkgroups(x, y);
  });
  const plainUnrolled = await timePass((pass) => {
    pass.setPipeline(readUnrolled);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        layout: readUnrolled.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: targets } },
          { binding: 1, resource: { buffer: sink } },
        ],
      }),
    );
    const [x, y] = grid(Math.ceil(bytes / READ_BYTES_PER_GROUP));
    pass.dispatchWorkgroups(x, y);
  });
  const parts = [
    `N=${n} (${(bytes / 1e6).toFixed(0)} MB): plain read ${(bytes / plain / 1e6).toFixed(0)} GB/s, unrolled ${(bytes / plainUnrolled / 1e6).toFixed(0)}`,
  ];
  for (const [shader, wg, lanes] of variants) {
    const variant = device.createComputePipeline({
      layout: 'auto',
      compute: { module: modules[shader], entryPoint: 'main', constants: { WG: wg, LANES: lanes } },
    });
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
