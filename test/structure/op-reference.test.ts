// docs/ops.md is generated (scripts/op-reference.ts) from the op definitions, the engine's methods and the backends'
// kernel tables: it must be what the generator makes now, so an op, input, option or kernel added without
// `npm run docs:ops` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OP_KINDS } from '@tandem/core';
import { opReference, OPS_MD } from '../../scripts/op-reference.ts';

describe(OPS_MD, () => {
  it('is up to date with the op definitions, the engine and the kernel tables (else: npm run docs:ops)', () => {
    const current = readFileSync(new URL(`../../${OPS_MD}`, import.meta.url), 'utf8');
    expect(current === opReference(), `${OPS_MD} is stale: run npm run docs:ops`).toBe(true);
  });

  it('has a section per op with its method, inputs and backends', () => {
    const text = opReference();
    for (const op of OP_KINDS) {
      const section = text.split(`\n## ${op}\n`)[1]?.split('\n## ')[0] ?? '';
      expect(section, op).toContain(`engine.${op}`);
      expect(section, op).toContain(`engine.run({ op: '${op}'`);
      expect(section, op).toMatch(/\| input \| dtypes \| rank \|/);
      expect(section, op).toMatch(/\| wasm \| [a-z0-9_, ]+ \|/);
    }
  });
});
