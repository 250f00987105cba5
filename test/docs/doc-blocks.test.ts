// Docs that run: every ```ts / ```js block of the READMEs (doc-blocks.ts says which) and every program in examples/ is
// type-checked (strict, as the repository's own code) and executed with Node against the WASM backend
// (TANDEM_FORCE_CPU=1: WASM, with the reference as the fallback of last resort). A block that cannot run here carries
// `skip: <reason>` in its info string. Each must exit 0 and print nothing on stderr.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockFileName, blocksOf, moduleText, readmes, ROOT, type DocBlock } from './doc-blocks.ts';

const run = promisify(execFile);
const DIR = path.join(ROOT, '.cache', 'doc-blocks');

const blocks: DocBlock[] = readmes().flatMap((readme) =>
  blocksOf(readme, readFileSync(path.join(ROOT, readme), 'utf8')),
);
const runnable = blocks.filter((b) => b.skip === undefined);
const examples = readdirSync(path.join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.ts'))
  .sort();

/** Type errors per file name (relative to DIR, or `examples/<name>`), from one tsc run over every block and example. */
const typeErrors = new Map<string, string[]>();
const ran: string[] = [];

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  for (const block of runnable) writeFileSync(path.join(DIR, blockFileName(block)), moduleText(block));
  const tsconfig = {
    extends: '../../tsconfig.base.json',
    compilerOptions: { types: ['node'], allowJs: true, checkJs: true, noEmit: true },
    include: ['*.ts', '*.mjs', '*.cjs', '../../examples/*.ts'],
  };
  writeFileSync(path.join(DIR, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const output = await run(process.execPath, [tsc, '-p', path.join(DIR, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: ROOT,
    maxBuffer: 1 << 24,
  }).then(
    (r) => r.stdout,
    (e: { stdout?: string }) => e.stdout ?? String(e),
  );
  for (const line of output.split('\n')) {
    const m = /^(.+?)\(\d+,\d+\): error/.exec(line);
    if (m === null) continue;
    const file = path.relative(DIR, path.resolve(ROOT, m[1] ?? '')).replace(/^\.\.\/\.\.\//, '');
    typeErrors.set(file, [...(typeErrors.get(file) ?? []), line]);
  }
  // An error outside the blocks (a broken tsconfig, say) must not pass silently.
  const stray = [...typeErrors.keys()].filter(
    (f) => !runnable.some((b) => blockFileName(b) === f) && !examples.some((e) => `examples/${e}` === f),
  );
  if (stray.length > 0) throw new Error(`type errors outside the doc blocks: ${stray.join(', ')}\n${output}`);
}, 600_000);

afterAll(() => {
  const skipped = blocks.filter((b) => b.skip !== undefined);
  console.log(
    `doc-test: ${blocks.length} code blocks in ${new Set(blocks.map((b) => b.readme)).size} READMEs, ${runnable.length} type-checked and run (${ran.length} passed here), ` +
      `${skipped.length} skipped (${skipped.map((b) => `${b.readme}:${b.line}: ${b.skip}`).join('; ')}); ${examples.length} example programs`,
  );
});

/** Runs a program with Node from the sources, on the CPU (WASM first), as a user would from the repository. */
async function execute(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, TANDEM_FORCE_CPU: '1', TANDEM_WEBGPU: '' };
  try {
    const r = await run(process.execPath, ['-C', '@tandem/source', '--import', 'tsx', file], {
      cwd: ROOT,
      env,
      timeout: 180_000,
      maxBuffer: 1 << 24,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message?: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? e.message ?? '',
    };
  }
}

describe('README code blocks', () => {
  it('every block either runs or says why it cannot (skip: <reason>)', () => {
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks.filter((x) => x.skip !== undefined))
      expect(b.skip, `${b.readme}:${b.line}`).toMatch(/\w{3,}/);
  });

  it.each(runnable.map((b) => [`${b.readme}:${b.line}`, b] as const))(
    '%s type-checks and runs',
    async (_name, block) => {
      const file = blockFileName(block);
      expect(typeErrors.get(file) ?? [], `type errors in ${block.readme}:${block.line}`).toEqual([]);
      const result = await execute(path.join(DIR, file));
      expect(result.stderr, `${block.readme}:${block.line} wrote to stderr`).toBe('');
      expect(result.code, `${block.readme}:${block.line} exited with ${result.code}`).toBe(0);
      ran.push(file);
    },
    200_000,
  );
});

describe('examples/', () => {
  it.each(examples)(
    'examples/%s type-checks and runs',
    async (name) => {
      expect(typeErrors.get(`examples/${name}`) ?? []).toEqual([]);
      const result = await execute(path.join(ROOT, 'examples', name));
      expect(result.stderr, `examples/${name} wrote to stderr`).toBe('');
      expect(result.code).toBe(0);
    },
    200_000,
  );
});
