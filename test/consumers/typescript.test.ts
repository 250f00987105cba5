// Tandem's types as a TypeScript user meets them: a strict program type-checked against the installed tarballs with
// skipLibCheck: false (the packages' .d.ts files are checked too), under Node's and bundlers' module resolution.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, type ConsumerProject } from './support/project.ts';

const app = readFileSync(new URL('./fixtures/ts-app.ts', import.meta.url), 'utf8');
const strict = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: 'ES2022',
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
};

/** The tsconfig of each consumer: Node (nodenext, @types/node) and a bundled page (bundler, DOM, no Node types). */
const CONFIGS = {
  nodenext: {
    compilerOptions: { ...strict, module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
    files: ['app.ts'],
  },
  bundler: {
    compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM'], types: [] },
    files: ['app.ts'],
  },
} as const;

describe('TypeScript consumers of the installed tarballs', () => {
  let project: ConsumerProject | undefined;

  beforeAll(async () => {
    const files: Record<string, string> = { 'app.ts': app };
    for (const [name, config] of Object.entries(CONFIGS))
      files[`tsconfig.${name}.json`] = JSON.stringify(config, null, 2);
    project = await consumerProject('typescript', {
      tarballs: ['tandem', '@tandem/graph'],
      fromRegistry: ['typescript', '@types/node'],
      files,
    });
  }, 600_000);
  afterAll(() => project?.remove());

  it.each(Object.keys(CONFIGS))('type-checks with moduleResolution %s and skipLibCheck false', async (name) => {
    const ran = await project?.run('npx', ['tsc', '-p', `tsconfig.${name}.json`]);
    expect(ran?.stdout + (ran?.stderr ?? '')).toBe('');
    expect(ran?.code).toBe(0);
  });

  it('the type checker rejects a wrong call, so the checks above are real', async () => {
    const dir = project?.dir ?? '';
    writeFileSync(
      path.join(dir, 'wrong.ts'),
      `${app}\nexport const wrong = (engine: Engine): Promise<Tensor> => engine.matmul(1, 2);\n`,
    );
    writeFileSync(path.join(dir, 'tsconfig.wrong.json'), JSON.stringify({ ...CONFIGS.nodenext, files: ['wrong.ts'] }));
    const ran = await project?.run('npx', ['tsc', '-p', 'tsconfig.wrong.json']);
    expect(ran?.code).not.toBe(0);
    expect(ran?.stdout).toMatch(
      /wrong\.ts.*error TS2345: Argument of type 'number' is not assignable to parameter of type 'Tensor/,
    );
  });
});
