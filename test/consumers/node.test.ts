// Tandem as a Node user gets it: the packed tarballs installed into a new project outside the repository, used with
// plain `node` (ESM and CommonJS), on the lowest Node the packages accept, and refused below it.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { siluValue } from '@tandem/reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOrSkip } from '../support/requirements.ts';
import { BELOW_LOWEST_NODE, LOWEST_NODE, nodeBinary, nodeBuildsMissing, npmCli } from './support/node-versions.ts';
import { consumerProject, newProjectDir, runIn, tarballSpecs, type ConsumerProject } from './support/project.ts';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** What fixtures/node-app.mjs prints. */
interface AppReport {
  readonly firstResultMs: number;
  readonly product: number[];
  readonly scores: number[];
  readonly topValues: number[];
  readonly topIndices: number[];
  readonly graph: number[];
  readonly backends: Array<{ name: string; available: boolean; reason: string | null }>;
}

function parseReport(stdout: string): AppReport {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

/** Checks every number the app computed against values worked out by hand (silu from the reference). */
function expectCorrect(report: AppReport): void {
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]]
  expect(report.product).toEqual([4, 5, 10, 11]);
  const norm = Math.hypot(1, 0.5);
  const expected = [1 / norm, 0.5 / norm, 1.5 / (norm * Math.SQRT2), -1 / norm];
  report.scores.forEach((s, i) => {
    expect(s).toBeCloseTo(expected[i] ?? Number.NaN, 6);
  });
  expect(report.topIndices).toEqual([2, 0]);
  report.topValues.forEach((v, i) => {
    expect(v).toBeCloseTo(expected[report.topIndices[i] ?? 0] ?? Number.NaN, 6);
  });
  [4, 5, 10, 11].map(siluValue).forEach((v, i) => {
    expect(report.graph[i]).toBeCloseTo(v, 5);
  });
}

describe('installed from the tarballs into a new project, in plain Node', () => {
  let project: ConsumerProject | undefined;

  beforeAll(async () => {
    project = await consumerProject('node', {
      tarballs: ['tandem', '@tandem/graph'],
      files: { 'app.mjs': fixture('node-app.mjs'), 'require.cjs': fixture('require.cjs') },
    });
  }, 600_000);
  afterAll(() => project?.remove());

  it('computes matmul, cosine + topK and a graph on WASM; the GPU parts say how to enable them', async () => {
    const ran = await project?.run('node', ['app.mjs']);
    expect(ran?.stderr).toBe('');
    const report = parseReport(ran?.stdout ?? '');
    expectCorrect(report);
    const byName = new Map(report.backends.map((b) => [b.name, b]));
    expect(byName.get('wasm')?.available).toBe(true);
    expect(byName.get('rocm')?.reason).toMatch(
      /@tandem\/rocm is not installed: npm install @tandem\/rocm, then npx tandem-rocm-build/,
    );
    expect(byName.get('webgpu')?.reason).toMatch(/the 'webgpu' package is not installed: npm install webgpu/);
    console.log(`[consumer] node: createEngine() to the first matmul result: ${report.firstResultMs.toFixed(1)} ms`);
  });

  it('installs without the GPU parts: no Dawn, no addon, nothing built', async () => {
    const dir = project?.dir ?? '';
    const installed = readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    expect(installed).not.toContain('node_modules/webgpu"');
    expect(installed).not.toContain('node_modules/@tandem/rocm"');
    const du = await project?.run('du', ['-sk', 'node_modules']);
    const kib = Number(du?.stdout.split('\t')[0]);
    expect(kib).toBeGreaterThan(0);
    console.log(`[consumer] install size of tandem + @tandem/graph in Node: ${(kib / 1024).toFixed(1)} MiB`);
  });

  it('CommonJS: require("tandem") loads the ES module', async () => {
    const ran = await project?.run('node', ['require.cjs']);
    expect(ran?.code).toBe(0);
    expect(JSON.parse(ran?.stdout.trim() ?? '[]')).toEqual([7, 10, 15, 22]);
  });

  it('a missing .wasm kernel file gives an error naming the file and what fixes it', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'tandem-consumer-stripped-'));
    try {
      cpSync(project?.dir ?? '', copy, { recursive: true });
      for (const build of ['simd', 'relaxed', 'simd-threads', 'relaxed-threads'])
        rmSync(path.join(copy, 'node_modules/@tandem/wasm/dist', `tandem-${build}.wasm`));
      const code =
        "import { createEngine } from 'tandem'; const e = await createEngine(); console.log(e.backends().find((b) => b.name === 'wasm')?.unavailableReason); await e.dispose();";
      expect((await project?.run('node', ['--input-type=module', '-e', code]))?.stdout.trim()).toBe('undefined');
      const inCopy = await runIn(copy, 'node', ['--input-type=module', '-e', code]);
      expect(inCopy.stdout).toMatch(
        /tandem-simd(-threads)?\.wasm not found: the @tandem\/wasm package ships it in dist\/.*optimizeDeps.*distUrl/,
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('Node versions', () => {
  const ok = requireOrSkip('other Node builds', nodeBuildsMissing(), 'run the consumer tests on Linux x64');

  it.skipIf(!ok)(
    `runs on the lowest Node the packages accept (${LOWEST_NODE}), ESM and CommonJS`,
    async () => {
      const node = await nodeBinary(LOWEST_NODE);
      const project = await consumerProject('node-lowest', {
        tarballs: ['tandem', '@tandem/graph'],
        files: { 'app.mjs': fixture('node-app.mjs'), 'require.cjs': fixture('require.cjs') },
      });
      try {
        expect((await project.run(node, ['--version'])).stdout.trim()).toBe(`v${LOWEST_NODE}`);
        const ran = await project.run(node, ['app.mjs']);
        expect(ran.stderr).toBe('');
        expectCorrect(parseReport(ran.stdout));
        expect(JSON.parse((await project.run(node, ['require.cjs'])).stdout.trim())).toEqual([7, 10, 15, 22]);
      } finally {
        project.remove();
      }
    },
    600_000,
  );

  it.skipIf(!ok)(
    `npm on Node ${BELOW_LOWEST_NODE} warns that the packages need >= ${LOWEST_NODE}`,
    async () => {
      const node = await nodeBinary(BELOW_LOWEST_NODE);
      const dir = newProjectDir('old-node');
      try {
        const ran = await runIn(dir, node, [
          npmCli(),
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          ...(await tarballSpecs(['tandem'])),
        ]);
        const version = (v: string): string => v.replace(/\./g, '\\.');
        expect(ran.stderr).toMatch(
          new RegExp(
            `EBADENGINE[\\s\\S]*package: 'tandem@0\\.1\\.0'[\\s\\S]*required: \\{ node: '>=${version(LOWEST_NODE)}' \\}[\\s\\S]*current: \\{ node: 'v${version(BELOW_LOWEST_NODE)}'`,
          ),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    600_000,
  );
});
