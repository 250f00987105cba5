// Every command line of the repository reads its arguments with node:util parseArgs in strict mode (issue 33):
// --help prints the usage with every flag and exits 0, and an unknown flag is an error that names it, exit 2. Both
// are answered before the command does anything (no build, bench, server or GPU), so each spawn takes only the
// time to load the script and its imports (a second or two; several when the machine is busy).
import { describe, expect, it } from 'vitest';
import { runScript as run } from '../support/run-script.ts';

/** A command line: its script (a .ts file runs under tsx) and words its --help must show. */
interface Cli {
  /** Path from the repository root. */
  readonly file: string;
  /** Flags (or modes) the usage lists. */
  readonly shows: readonly string[];
}

const CLIS: readonly Cli[] = [
  { file: 'packages/wasm/scripts/build.mjs', shows: ['--force', '--only'] },
  { file: 'packages/wasm/scripts/bench.ts', shows: ['--only', '--threads', '--no-build'] },
  { file: 'packages/rocm/scripts/build.mjs', shows: ['--variant', '--optional', '--jobs', '--clean'] },
  { file: 'packages/rocm/scripts/pack-native.mjs', shows: ['copy', 'remove'] },
  { file: 'scripts/op-reference.ts', shows: ['--check'] },
  {
    file: 'test/conformance/gpu/run-on-gpu.ts',
    shows: ['--rocm-addon', '--only', '--swiftshader', '--quick', '--cases'],
  },
  { file: 'packages/webgpu/src/tools/embed-wgsl.ts', shows: ['embed-wgsl'] },
  { file: 'apps/bench/src/warm-start/first-calls.ts', shows: ['decisions', 'first-fast'] },
  { file: 'apps/bench/src/cli.ts', shows: ['--gpu'] },
  { file: 'apps/server/src/main.ts', shows: ['--port', '--host', '--words'] },
];

describe.concurrent('command lines: --help and unknown flags', () => {
  for (const cli of CLIS)
    it(`${cli.file}: --help prints the usage (exit 0); --no-such-flag is refused by name (exit 2)`, async () => {
      // -h is spawned only for the .mjs scripts: a .ts one costs seconds to load on a busy machine, and its usage
      // line `-h, --help` comes from the same parseArgs options as --help.
      const [help, unknown, short] = await Promise.all([
        run(cli.file, ['--help']),
        run(cli.file, ['--no-such-flag']),
        cli.file.endsWith('.mjs') ? run(cli.file, ['-h']) : undefined,
      ]);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: /);
      expect(help.stdout).toContain('-h, --help');
      for (const word of cli.shows) expect(help.stdout, word).toContain(word);
      if (short !== undefined) {
        expect(short.code, short.stderr).toBe(0);
        expect(short.stdout).toBe(help.stdout);
      }
      expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain('--no-such-flag');
      expect(unknown.stderr).toContain('Usage: ');
      expect(unknown.stdout).toBe('');
    }, 120_000);
});
