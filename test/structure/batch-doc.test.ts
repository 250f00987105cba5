// packages/tandem/README.md's table of what each op's batch counts (what gpuMinBatchSize compares) is the op
// definitions' batchDoc, op for op.
import { readFileSync } from 'node:fs';
import { OP_KINDS, opDefinition } from '@tandem/core';
import { describe, expect, it } from 'vitest';

describe("the README's batch table", () => {
  it('lists every op with its definition batchDoc', () => {
    const readme = readFileSync(new URL('../../packages/tandem/README.md', import.meta.url), 'utf8');
    const table = readme.split('| op | batch |')[1]?.split('\n\n')[0] ?? '';
    const rows = [...table.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(OP_KINDS.map((kind) => [kind, opDefinition(kind).batchDoc]));
  });
});
