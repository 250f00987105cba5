// Diagnostic (GPU machine): how uploads change the read bandwidth of a Dawn/Vulkan device. A plain vec4 read
// (timestamps, median of 9) of: a buffer of one binding's size (2.15 GB), a 1M x 768 f32 buffer (3.07 GB, read
// in two binding ranges), the first buffer again, and a new one. Data filled by a kernel, or uploaded:
//   source .gpukit/setup.sh && node -C @tandem/source --import tsx apps/bench/probes/webgpu-upload-probe.mjs [options]
//   --upload              queue.writeBuffer in pieces (as the backend does), one random piece written over and over
//   --upload-wait         the same, waiting for the queue after each piece (--wait-mib M: after every M MiB)
//   --own-staging         one MAP_WRITE buffer, mapped, filled and copied per piece
//   --fresh-data          each piece new data (xorshift seeded by its offset) instead of the one repeated piece
//   --piece-mib N         piece size (default 64)
//   --new-device          then a second device of the same process: a kernel-filled buffer read there
// Its findings on the H100: docs/decisions.md, Issue 29 (probes), and packages/webgpu/README.md. (dawn.node aborts with
// "The futex facility returned an unexpected error code" if the Dawn instance is collected: webgpu-probe-device.mjs holds it.)
import { parseArgs } from 'node:util';
import {
  FILL_WGSL,
  READ_BYTES_PER_GROUP,
  READ_WGSL,
  grid,
  openProbeDevice,
  passTimer,
  pipeline,
} from './webgpu-probe-device.mjs';

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

const USAGE =
  'Usage: node -C @tandem/source --import tsx apps/bench/probes/webgpu-upload-probe.mjs [--upload] [--upload-wait [--wait-mib M]] [--own-staging] [--fresh-data] [--piece-mib N] [--new-device] (see the top of the file)';
let args;
try {
  const flag = { type: 'boolean' };
  args = parseArgs({
    options: {
      upload: flag,
      'upload-wait': flag,
      'own-staging': flag,
      'fresh-data': flag,
      'new-device': flag,
      'piece-mib': { type: 'string' },
      'wait-mib': { type: 'string' },
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

/** The number given to --`name` (a finite number >= 0), or `fallback`; exits 2 naming the flag otherwise. */
function numberArg(name, fallback) {
  const raw = args[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} ${raw}: must be a number >= 0`);
    process.exit(2);
  }
  return n;
}

/** Timed reads and kernel fills of buffers on one device. */
function deviceProbe({ device, limits }) {
  const fill = pipeline(device, FILL_WGSL);
  const read = pipeline(device, READ_WGSL);
  const sink = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
  const timePass = passTimer(device);
  return {
    /** Read bandwidth of buffer[offset, offset + size), as text. */
    async timeRead(buffer, offset, size) {
      const bind = device.createBindGroup({
        layout: read.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer, offset, size } },
          { binding: 1, resource: { buffer: sink } },
        ],
      });
      const ms = await timePass((pass) => {
        pass.setPipeline(read);
        pass.setBindGroup(0, bind);
        pass.dispatchWorkgroups(...grid(limits, Math.ceil(size / READ_BYTES_PER_GROUP)));
      });
      return `${(size / ms / 1e6).toFixed(0)} GB/s`;
    },
    /** Fills buffer[offset, offset + size) with hash data from a kernel. */
    async fillRange(buffer, offset, size) {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(fill);
      pass.setBindGroup(
        0,
        device.createBindGroup({
          layout: fill.getBindGroupLayout(0),
          entries: [{ binding: 0, resource: { buffer, offset, size } }],
        }),
      );
      pass.dispatchWorkgroups(...grid(limits, Math.ceil(size / 4 / 256)));
      pass.end();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
    },
  };
}

const opened = await openProbeDevice();
const { device, limits } = opened;
device.addEventListener?.('uncapturederror', (e) => console.log('uncaptured:', e.error?.message));
console.log(`maxBufferSize ${limits.maxBufferSize}, maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`);
const probe = deviceProbe(opened);

const ownStaging = args['own-staging'] === true;
const waitEach = args['upload-wait'] === true;
const freshData = args['fresh-data'] === true;
const upload = args.upload === true || waitEach || ownStaging;
// Pieces of at most 4 MiB fit Dawn's upload ring buffers (DynamicUploader); larger ones get a staging buffer each.
const PIECE = numberArg('piece-mib', 64) * 2 ** 20;
const WAIT_EVERY = numberArg('wait-mib', 0) * 2 ** 20;
const host = new Uint8Array(upload ? PIECE : 0);
const hostWords = new Uint32Array(host.buffer);
const hostFloats = new Float32Array(host.buffer);
for (let i = 0; i < hostFloats.length; i++) hostFloats[i] = Math.random() * 2 - 1;
let staging;

/** Overwrites the host piece with floats in [-1, 1) from a xorshift32 seeded by `offset`. */
function freshPiece(offset) {
  let s = (offset / 4 + 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < hostWords.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    hostFloats[i] = s * (2 / 4294967296) - 1;
  }
}

/** Writes buffer[offset, offset + size): a fill kernel, or the host piece uploaded piece by piece. */
async function write(buffer, offset, size) {
  if (!upload) return probe.fillRange(buffer, offset, size);
  for (let at = 0; at < size; at += PIECE) {
    const n = Math.min(PIECE, size - at);
    if (freshData) freshPiece(offset + at);
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
      if (waitEach || (WAIT_EVERY > 0 && (at + n) % WAIT_EVERY === 0)) await device.queue.onSubmittedWorkDone();
    }
  }
  await device.queue.onSubmittedWorkDone();
}

const ROW = 768 * 4;
const range = Math.floor(limits.maxStorageBufferBindingSize / ROW / 64) * 64 * ROW; // 256-byte aligned ranges
const total = 1_000_000 * ROW;
const waits = waitEach ? ', waiting for each' : WAIT_EVERY > 0 ? `, waiting every ${WAIT_EVERY / 2 ** 20} MiB` : '';
const how = ownStaging
  ? `one MAP_WRITE staging buffer of ${PIECE / 2 ** 20} MiB, mapped and copied per piece`
  : `writeBuffer, ${PIECE / 2 ** 20} MiB pieces${waits}`;
console.log(
  `data ${upload ? `uploaded (${how}; ${freshData ? 'fresh data per piece' : 'one repeated piece'})` : 'filled by a kernel'}; range ${range} bytes`,
);
const first = device.createBuffer({ size: range, usage: STORAGE });
await write(first, 0, range);
console.log(
  `separate buffer of one range (${(range / 1e9).toFixed(2)} GB): read ${await probe.timeRead(first, 0, range)}`,
);
const big = device.createBuffer({ size: total, usage: STORAGE });
await write(big, 0, range);
await write(big, range, total - range);
console.log(
  `3.07 GB buffer, range 0 (${(range / 1e9).toFixed(2)} GB): read ${await probe.timeRead(big, 0, range)}; range 1 (${((total - range) / 1e9).toFixed(2)} GB at ${range}): read ${await probe.timeRead(big, range, total - range)}`,
);
console.log(
  `the first separate buffer again, after the big one's writes: read ${await probe.timeRead(first, 0, range)}`,
);
big.destroy();
first.destroy();
const again = device.createBuffer({ size: range, usage: STORAGE });
await write(again, 0, range);
console.log(`separate buffer again, after the big one: read ${await probe.timeRead(again, 0, range)}`);
if (args['new-device'] === true) {
  // Is the slowdown the device's or the process's? A second device, its buffer filled by a kernel.
  const second = await openProbeDevice();
  const other = second.device.createBuffer({ size: range, usage: STORAGE });
  const secondProbe = deviceProbe(second);
  await secondProbe.fillRange(other, 0, range);
  console.log(
    `a second device of the same process, its buffer filled by a kernel: read ${await secondProbe.timeRead(other, 0, range)}`,
  );
  second.device.destroy();
}
device.destroy();
