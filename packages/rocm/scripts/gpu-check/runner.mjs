// Runs correctness cases on an opened native device: poisons the output blocks (NaN bytes, which the device's
// caching allocator hands to the next allocation of that size), uploads, runs, downloads, compares.
import { bytesOf, compare, halfToFloat } from './util.mjs';

async function poison(device, outputs) {
  const ids = [];
  for (const o of outputs) if (o.bytes > 0) ids.push(await device.upload(new Uint8Array(o.bytes).fill(0xff)));
  for (const id of ids) device.free(id);
}

function decode(bytes, kind) {
  if (kind === 'f32') return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  if (kind === 'i32') return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return Float64Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2), halfToFloat);
}

/** Runs one case; resolves { name, ok, kernelMs, checks } or { name, ok: false, error }. */
export async function runCase(device, c) {
  const inputIds = [];
  let outputIds = [];
  try {
    await poison(device, c.outputs);
    for (const a of c.inputs) inputIds.push(await device.upload(bytesOf(a)));
    const result = await device.run(c.kernel, inputIds, c.outputs.map((o) => o.bytes), c.params);
    outputIds = [...result.outputs];
    const expected = c.expect();
    const checks = [];
    for (let i = 0; i < c.outputs.length; i++) {
      const got = decode(await device.download(outputIds[i]), c.outputs[i].kind);
      const cmp = compare(got, expected[i]);
      const tol = c.outputs[i].tol;
      const ok = typeof cmp.length === 'number' && cmp.firstBad < 0 && (tol === 0 ? cmp.maxAbs === 0 : cmp.relL2 <= tol);
      const detail = { ...cmp, tol, ok };
      if (!ok && cmp.firstBad >= 0) detail.at = { index: cmp.firstBad, got: got[cmp.firstBad], want: expected[i][cmp.firstBad] };
      if (!ok && cmp.firstBad < 0) {
        let worst = 0;
        for (let j = 0; j < expected[i].length; j++) if (Math.abs(got[j] - expected[i][j]) > Math.abs(got[worst] - expected[i][worst])) worst = j;
        detail.worst = { index: worst, got: got[worst], want: expected[i][worst] };
      }
      checks.push(detail);
    }
    return { name: c.name, ok: checks.every((x) => x.ok), kernelMs: result.kernelMs, checks };
  } catch (error) {
    return { name: c.name, ok: false, error: `${error?.code ?? ''} ${error?.message ?? error}` };
  } finally {
    for (const id of [...inputIds, ...outputIds]) device.free(id);
  }
}

/** The addon's own error reporting: out of memory, unknown ids, undersized inputs, and recovery afterwards. */
export async function errorChecks(device) {
  const results = [];
  const expectReject = async (name, fn, test) => {
    try {
      await fn();
      results.push({ name, ok: false, error: 'did not fail' });
    } catch (error) {
      const ok = test(error);
      results.push({ name, ok, ...(ok ? {} : { error: `${error?.code} ${error?.message}` }), code: error?.code });
    }
  };
  const x = await device.upload(new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer));
  const huge = 2 ** 42;
  await expectReject('out of memory names the runtime error and the size', () => device.run('scale_f32', [x], [huge], { count: 4, factor: 2 }), (e) => /MemoryAllocation|OutOfMemory/.test(e.code) && e.requestedBytes === huge);
  await expectReject('unknown buffer id', async () => device.download(987654), (e) => e.code === 'TANDEM_UNKNOWN_BUFFER');
  await expectReject('undersized input', async () => device.run('matmul_f32', [x, x], [64], { m: 4, k: 4, n: 4 }), (e) => e.code === 'TANDEM_BAD_ARGUMENT');
  await expectReject('unknown kernel', async () => device.run('nope', [x], [4], {}), (e) => e.code === 'TANDEM_UNKNOWN_KERNEL');
  const after = await device.run('scale_f32', [x], [16], { count: 4, factor: 2 });
  const doubled = new Float32Array((await device.download(after.outputs[0])).buffer);
  results.push({ name: 'the device works after those failures', ok: doubled.join(',') === '2,4,6,8', got: Array.from(doubled) });
  device.free(after.outputs[0]);
  device.free(x);
  return results;
}
