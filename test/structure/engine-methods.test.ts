// Every public method of Engine (packages/core/src/engine.ts, overloads once) is called by test/engine's tests, so that a new method,
// and the defaults it fills in, cannot land without a test that calls it as users do (issue 35).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The public methods declared in engine.ts (private ones, the constructor and static create left out). */
function publicMethods(): string[] {
  const source = readFileSync(`${ROOT}packages/core/src/engine.ts`, 'utf8');
  const names = [...source.matchAll(/^ {2}(?:async )?([a-zA-Z]+)[<(]/gm)].map((m) => m[1] ?? '');
  return [...new Set(names)].filter((name) => name !== 'constructor');
}

/** The text of every test file in test/engine. */
function engineTests(): string {
  const folder = `${ROOT}test/engine/`;
  return readdirSync(folder)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => readFileSync(folder + f, 'utf8'))
    .join('\n');
}

describe('Engine methods', () => {
  const methods = publicMethods();
  const tests = engineTests();

  it('are found in engine.ts (the op methods and the lifecycle ones)', () => {
    expect(methods).toEqual(
      expect.arrayContaining(['init', 'run', 'explain', 'dispose', 'matmul', 'spreadActivation']),
    );
  });

  it('are each called in a test of test/engine', () => {
    expect(methods.filter((name) => !tests.includes(`.${name}(`))).toEqual([]);
  });

  it('include the async dispose that `await using` calls, which a test uses', () => {
    expect(readFileSync(`${ROOT}packages/core/src/engine.ts`, 'utf8')).toContain('[Symbol.asyncDispose]()');
    expect(tests).toMatch(/await using \w+ = await Engine\.create/);
  });
});
