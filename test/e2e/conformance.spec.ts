// Every conformance case in headless Chromium on WebGPU (SwiftShader behind navigator.gpu), on WASM (when its
// kernels are built) and on the reference backend, each output compared in Node with @tandem/reference on the
// same seeded inputs, within the case's tolerance: the browser agrees with Node.
import { checkRun } from './check-report.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { expect, loadReport, test } from './fixtures.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] } });

test('every case on WebGPU, WASM and the reference in Chromium agrees with Node', async ({ page, pageServer }) => {
  const report = await loadReport(page, pageServer.url, 80_000);
  expect(report.webgpu, `WebGPU should be available with ${WEBGPU_FLAG}`).toMatchObject({ available: true });
  const wasmMissing = report.unavailable.find((u) => u.backend === 'wasm');
  if (wasmMissing !== undefined) console.warn(`wasm did not start in the page (not compared): ${wasmMissing.reason}`);
  expect(report.runs.map((r) => r.backend)).toEqual(['webgpu', ...(wasmMissing === undefined ? ['wasm'] : []), 'reference']);
  for (const run of report.runs) {
    const verdict = checkRun(run);
    const summary = `${run.backend} on ${run.device}: ${verdict.agreed} of ${run.cases.length} cases agree with Node (${verdict.identical} bit-identical), ${verdict.unsupported.length} unsupported, ${run.ms.toFixed(0)} ms`;
    console.log(summary);
    for (const line of verdict.unsupported) console.log(`  unsupported: ${line}`);
    test.info().annotations.push({ type: run.backend, description: summary });
    expect(verdict.problems, summary).toEqual([]);
    expect(verdict.agreed + verdict.unsupported.length).toBe(run.cases.length);
  }
  const reference = report.runs.find((r) => r.backend === 'reference');
  expect(reference === undefined ? [] : checkRun(reference).unsupported, 'the reference runs every case').toEqual([]);
});
