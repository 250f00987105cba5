// test/reliability/README.md has a row for every test file in test/reliability, so a new file says what it proves.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FOLDER = fileURLToPath(new URL('../reliability/', import.meta.url));

describe('test/reliability/README.md', () => {
  it('names every test file of test/reliability in its table', () => {
    const readme = readFileSync(`${FOLDER}README.md`, 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    const files = readdirSync(FOLDER).filter((f) => f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => !rows.some((row) => row.includes(`\`${f}\``)))).toEqual([]);
  });
});
