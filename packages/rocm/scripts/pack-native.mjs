// npm pack's prepack/postpack: copies the repository's native-rocm/ (the HIP kernels and the addon's C++) into the
// package, so the installed package can build the addon (npx tandem-rocm-build), then removes the copy again.
//   node scripts/pack-native.mjs copy|remove
// --help prints the usage; an unknown flag or action is an error (exit 2).
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `Usage: node packages/rocm/scripts/pack-native.mjs copy|remove   (npm pack's prepack and postpack)

Copies the repository's native-rocm/ into the package (without the emulation), or removes the copy.

  copy                      copy native-rocm/ into packages/rocm/native-rocm/
  remove                    remove packages/rocm/native-rocm/
  -h, --help                this text`;

/** Exits 2 with `message` and the usage. */
function refuse(message) {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
} catch (error) {
  refuse(error instanceof Error ? error.message : String(error));
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (parsed.positionals.length !== 1) refuse(`one action, copy or remove (got ${parsed.positionals.length})`);
const action = parsed.positionals[0];
const target = fileURLToPath(new URL('../native-rocm', import.meta.url));
const source = fileURLToPath(new URL('../../../native-rocm', import.meta.url));
if (action === 'copy') {
  rmSync(target, { recursive: true, force: true });
  // The emulation (CI's CPU stand-in for HIP) is for this repository's tests, not for users.
  cpSync(source, target, { recursive: true, filter: (path) => !path.includes('/emulation') });
} else if (action === 'remove') {
  rmSync(target, { recursive: true, force: true });
} else {
  refuse(`unknown action '${action}': copy or remove`);
}
