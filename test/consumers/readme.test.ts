// packages/tandem/README.md's Node examples, run as written against the installed tarballs (its page example runs
// in Chromium: test/e2e/consumer-page.spec.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, type ConsumerProject } from './support/project.ts';
import { readmeExample, readmeExamples } from './support/readme.ts';

const README = 'packages/tandem/README.md';

describe(`${README}'s examples`, () => {
  let project: ConsumerProject | undefined;

  beforeAll(async () => {
    project = await consumerProject('readme', {
      tarballs: ['tandem'],
      files: {
        'example.mjs': readmeExample(README, 'example.mjs'),
        'example.cjs': readmeExample(README, 'example.cjs'),
      },
    });
  }, 600_000);
  afterAll(() => project?.remove());

  it('has exactly the examples the tests run', () => {
    expect([...readmeExamples(README).keys()].sort()).toEqual(['example.cjs', 'example.mjs', 'page.js']);
  });

  it('example.mjs prints the product, the decision and every backend', async () => {
    const ran = await project?.run('node', ['example.mjs']);
    expect(ran?.stderr).toBe('');
    const lines = ran?.stdout.trim().split('\n') ?? [];
    expect(lines[0]).toBe('Float32Array(4) [ 19, 22, 43, 50 ]');
    expect(ran?.stdout).toMatch(/backend: '(wasm|reference)'/);
    expect(lines.slice(-4).map((l) => l.split(' ')[0])).toEqual(['rocm', 'wasm', 'webgpu', 'reference']);
    expect(ran?.stdout).toContain('rocm unavailable: @tandem/rocm is not installed');
  });

  it('example.cjs prints the product', async () => {
    const ran = await project?.run('node', ['example.cjs']);
    expect(ran?.stderr).toBe('');
    expect(ran?.stdout.trim()).toBe('Float32Array(4) [ 7, 10, 15, 22 ]');
  });
});
