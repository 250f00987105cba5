import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_VERSION } from './version.ts';

describe('ENGINE_VERSION', () => {
  it("is the package's version (profiles of another version are not trusted)", () => {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg).toMatchObject({ version: ENGINE_VERSION });
  });
});
