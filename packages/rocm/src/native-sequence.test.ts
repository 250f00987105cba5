// The addon's sequences (native-rocm/src/sequence.h) on the CPU emulation of HIP: prepareSequence checks every step
// once and refuses a bad one naming it; runSequence launches all the kernels in one job and hands back only the kept
// values, with the bytes the same kernels give run one by one; a run that fails hands back nothing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { NativeDevice, NativeSequenceSpec } from './addon-api.ts';
import { loadAddon } from './load-addon.ts';
import { requireBackend } from '../../../test/support/requirements.ts';

const EMULATED = fileURLToPath(new URL('../build/emulated/tandem_rocm.node', import.meta.url));
const N = 64;
const BYTES = N * 4;

/** x -> scale by 2 (value 1) -> add x (value 2) -> scale by 0.5 (value 3); keeps values 2 and 3. */
const SPEC: NativeSequenceSpec = {
  inputBytes: [BYTES],
  steps: [
    { kernel: 'scale_f32', inputs: [0], outputBytes: [BYTES], params: { count: N, factor: 2 }, release: [] },
    { kernel: 'add_f32', inputs: [1, 0], outputBytes: [BYTES], params: { count: N, bCount: N }, release: [1] },
    { kernel: 'scale_f32', inputs: [2], outputBytes: [BYTES], params: { count: N, factor: 0.5 }, release: [2] },
  ],
  keep: [2, 3],
};

function openDevice(): NativeDevice {
  const load = loadAddon(EMULATED);
  if (!load.ok) throw new Error(load.reason);
  return new load.addon.Device(0);
}

function floats(seed: number): Uint8Array {
  const x = new Float32Array(N);
  for (let i = 0; i < N; i++) x[i] = Math.sin(seed + i * 0.7) * 3;
  return new Uint8Array(x.buffer);
}

/** The error `fn` throws (or undefined). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe.skipIf(!requireBackend('rocm', existsSync(EMULATED) ? undefined : `no emulated HIP build at ${EMULATED}`))(
  'native sequences on the emulated device',
  () => {
    it('runs every step in one job with the bytes of the kernels run one by one, for each new input', async () => {
      const device = openDevice();
      const handle = device.prepareSequence(SPEC);
      for (const seed of [1, 2, 3]) {
        const x = await device.upload(floats(seed));
        const run = await device.runSequence(handle, [x], true);
        expect(run.outputs).toHaveLength(2);
        expect(run.stepMs).toHaveLength(3);
        expect(run.kernelMs).toBeGreaterThanOrEqual(0);
        const doubled = (await device.run('scale_f32', [x], [BYTES], { count: N, factor: 2 })).outputs;
        const summed = (await device.run('add_f32', [doubled[0] ?? 0, x], [BYTES], { count: N, bCount: N })).outputs;
        const halved = (await device.run('scale_f32', [summed[0] ?? 0], [BYTES], { count: N, factor: 0.5 })).outputs;
        expect(await device.download(run.outputs[0] ?? 0)).toEqual(await device.download(summed[0] ?? 0));
        expect(await device.download(run.outputs[1] ?? 0)).toEqual(await device.download(halved[0] ?? 0));
        // The intermediate (value 1) was never handed out; only the kept values are buffers.
        for (const id of [...run.outputs, ...doubled, ...summed, ...halved, x]) expect(device.free(id)).toBe(true);
      }
      const untimed = await device.runSequence(handle, [await device.upload(floats(4))], false);
      expect(untimed.stepMs).toEqual([]);
      device.close();
    });

    it('refuses a bad spec when prepared, naming the step and what is wrong', () => {
      const device = openDevice();
      const step = (i: number, change: object): NativeSequenceSpec => ({
        ...SPEC,
        steps: SPEC.steps.map((s, j) => (j === i ? { ...s, ...change } : s)),
      });
      const cases: [NativeSequenceSpec, string, RegExp][] = [
        [step(1, { kernel: 'nope' }), 'TANDEM_UNKNOWN_KERNEL', /sequence step 1: no native kernel named 'nope'/],
        [
          step(1, { inputs: [1, 5] }),
          'TANDEM_BAD_ARGUMENT',
          /sequence step 1\.inputs\[1\] must be an integer in \[0, 2\)/,
        ],
        [step(1, { inputs: [1] }), 'TANDEM_BAD_ARGUMENT', /sequence step 1 \(add_f32\): wrong number of inputs/],
        [
          step(0, { release: [0, 1] }),
          'TANDEM_BAD_ARGUMENT',
          /sequence step 1 \(add_f32\): input 0 reads value 1, released/,
        ],
        [
          step(2, { params: { count: N } }),
          'TANDEM_BAD_PARAMS',
          /sequence step 2 \(scale_f32\): .*missing parameter 'factor'/,
        ],
        [
          step(0, { params: { count: N * 2, factor: 2 } }),
          'TANDEM_BAD_ARGUMENT',
          /input 0 \(value 0\) has 256 bytes, the parameters need 512/,
        ],
        [
          step(0, { outputBytes: [BYTES - 4] }),
          'TANDEM_BAD_ARGUMENT',
          /sequence step 0 \(scale_f32\): output 0 must have at least 256 bytes/,
        ],
        [{ ...SPEC, keep: [0] }, 'TANDEM_BAD_ARGUMENT', /value 0 is an input; keep names step outputs/],
        [{ ...SPEC, keep: [3, 2, 3] }, 'TANDEM_BAD_ARGUMENT', /sequence\.keep: value 3 is kept twice/],
        [{ ...SPEC, steps: [] }, 'TANDEM_BAD_ARGUMENT', /sequence\.steps must be a non-empty array/],
      ];
      for (const [spec, code, message] of cases) {
        const error = thrown(() => device.prepareSequence(spec));
        expect(error, message.source).toBeInstanceOf(Error);
        expect(Reflect.get(Object(error), 'code')).toBe(code);
        expect(String(Reflect.get(Object(error), 'message'))).toMatch(message);
      }
      device.close();
    });

    it('refuses a run with the wrong inputs or a handle it did not make, before queueing anything', async () => {
      const device = openDevice();
      const other = openDevice();
      const handle = device.prepareSequence(SPEC);
      const small = await device.upload(new Uint8Array(BYTES - 4));
      const x = await device.upload(floats(1));
      const cases: [() => unknown, RegExp][] = [
        [() => device.runSequence(handle, [], true), /0 inputs given, the sequence takes 1/],
        [() => device.runSequence(handle, [9999], true), /input buffer 9999 does not exist/],
        [() => device.runSequence(handle, [small], true), /input 0 has 252 bytes, the sequence needs 256/],
        [() => other.runSequence(handle, [x], true), /prepared on another device/],
        [
          () => device.runSequence(Object.create(null), [x], true),
          /runSequence\(sequence: handle from prepareSequence/,
        ],
      ];
      for (const [call, message] of cases) expect(String(thrown(call))).toMatch(message);
      device.close();
      other.close();
    });

    it('hands back nothing when a step fails: the kept ids are unknown and the device still runs', async () => {
      const device = openDevice();
      // The emulated device refuses allocations above 1 GiB, as a real one would past its memory.
      const huge: NativeSequenceSpec = {
        ...SPEC,
        steps: SPEC.steps.map((s, i) => (i === 2 ? { ...s, outputBytes: [2 ** 31] } : s)),
      };
      const x = await device.upload(floats(1));
      const error: unknown = await device.runSequence(device.prepareSequence(huge), [x], true).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Reflect.get(Object(error), 'code')).toBe('hipErrorOutOfMemory');
      expect(String(error)).toMatch(/sequence step 2 \(scale_f32\) output 0/);
      // Ids are handed out in order: the failed run's two kept values had the two after x's, now forgotten.
      for (const id of [x + 1, x + 2]) expect(String(thrown(() => device.download(id)))).toMatch(/does not exist/);
      const run = await device.runSequence(device.prepareSequence(SPEC), [x], false);
      expect(run.outputs).toHaveLength(2);
      device.close();
    });
  },
);
