import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TANDEM_VERSION } from './version.ts';

describe('TANDEM_VERSION', () => {
  it("is the package's version (profiles of another version are not trusted)", () => {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg).toMatchObject({ version: TANDEM_VERSION });
  });
});
