// Every op property (./properties) on one backend under test, against @tandem/reference's kernels; a file per
// backend (properties-wasm, -webgpu, -rocm) so the slow ones run beside the others. A backend that does not start
// is skipped with its one line (outside CI) or fails the file (under CI), never passed over.
import { afterAll, describe, it } from 'vitest';
import { startBackend, type TestBackendName } from '../support/backends.ts';
import { PROPERTIES } from './properties/index.ts';
import { AgreementBench, PROPERTY_TIMEOUT_MS } from './property-support.ts';

/** Declares one test per property on `name` (call at the top level of a test file). */
export async function describeProperties(name: TestBackendName): Promise<void> {
  const backend = await startBackend(name);
  const bench = await AgreementBench.create(backend === undefined ? [] : [backend]);
  afterAll(async () => {
    await bench.dispose();
  });
  describe.skipIf(backend === undefined)(`${name} agrees with the reference on random shapes and values`, () => {
    for (const property of PROPERTIES) {
      it(
        property.name,
        async () => {
          if (backend === undefined) throw new Error(`${name} did not start`);
          await property.assert(bench, bench.target(backend));
        },
        PROPERTY_TIMEOUT_MS,
      );
    }
  });
}
