// npm pack's prepack/postpack: copies the repository's native-rocm/ (the HIP kernels and the addon's C++) into the
// package, so the installed package can build the addon (npx tandem-rocm-build), then removes the copy again.
//   node scripts/pack-native.mjs copy|remove
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const target = fileURLToPath(new URL('../native-rocm', import.meta.url));
const source = fileURLToPath(new URL('../../../native-rocm', import.meta.url));
const action = process.argv[2];
if (action === 'copy') {
  rmSync(target, { recursive: true, force: true });
  // The emulation (CI's CPU stand-in for HIP) is for this repository's tests, not for users.
  cpSync(source, target, { recursive: true, filter: (path) => !path.includes('/emulation') });
} else if (action === 'remove') {
  rmSync(target, { recursive: true, force: true });
} else {
  console.error('usage: node scripts/pack-native.mjs copy|remove');
  process.exit(2);
}
