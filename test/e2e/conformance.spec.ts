// Every conformance case in headless Chromium on WebGPU (SwiftShader behind navigator.gpu) and on WASM, each output
// compared in Node with @tandem/reference on the same seeded inputs, within the case's tolerance: the browser agrees
// with Node. WASM that does not start in the page fails under CI (one [skip] line elsewhere). The reference backend
// runs one plumbing case only (REFERENCE_PLUMBING_CASE): more would compare the reference with itself.
import { HOW_TO_ENABLE, requireOrSkip } from '../support/requirements.ts';
import { checkRun } from './check-report.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { expect, loadReport, test } from './fixtures.ts';
import { REFERENCE_PLUMBING_CASE } from './report.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] } });

test('every case on WebGPU and WASM in Chromium agrees with Node; the reference runs its plumbing case', async ({
  page,
  pageServer,
}) => {
  const report = await loadReport(page, pageServer.url, 80_000);
  expect(report.webgpu, `WebGPU should be available with ${WEBGPU_FLAG}`).toMatchObject({ available: true });
  const wasm = requireOrSkip(
    'wasm backend in Chromium',
    report.unavailable.find((u) => u.backend === 'wasm')?.reason,
    HOW_TO_ENABLE.wasm,
  );
  expect(report.runs.map((r) => r.backend)).toEqual(['webgpu', ...(wasm ? ['wasm'] : []), 'reference']);
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
  expect(reference?.cases.map((c) => c.name)).toEqual([REFERENCE_PLUMBING_CASE]);
  expect(reference === undefined ? undefined : checkRun(reference), 'the plumbing case, bit for bit').toMatchObject({
    agreed: 1,
    identical: 1,
  });
});
