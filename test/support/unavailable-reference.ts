// A vitest setup file (vite.config.ts): with TANDEM_TEST_UNAVAILABLE naming `reference`, every ReferenceBackend in
// this test file fails to start (init() resolves { ok: false }), as wasm, webgpu and rocm fail through
// requireBackend. The reference's kernels (computeReference, the oracle) are untouched: only the backend goes.
import { madeUnavailable, UNAVAILABLE_REASON } from './requirements.ts';

if (madeUnavailable('reference')) {
  const { ReferenceBackend } = await import('@tandem/reference');
  ReferenceBackend.prototype.init = async () => ({ ok: false, reason: UNAVAILABLE_REASON });
}
