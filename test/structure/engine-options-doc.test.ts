// README.md's `createEngine` options table: every option of CreateEngineOptions (EngineOptions and the factory
// options) has a row, and every field of the nested configs (scheduler, costModel, tracker, decisionCache) is named
// in its row with its default value. The option names are read from the interfaces' source, so a new option fails
// here until it is documented.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_COST_MODEL_CONFIG,
  DEFAULT_DECISION_CACHE_CONFIG,
  DEFAULT_SCHEDULER_CONFIG,
  DEFAULT_TRACKER_CONFIG,
} from '@tandem/core';

const ROOT = new URL('../../', import.meta.url);

/** The property names of interface `name` in `file` (relative to the root). */
function members(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(new URL(file, ROOT), 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) {
      for (const m of node.members) if (ts.isPropertySignature(m) && ts.isIdentifier(m.name)) found.push(m.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (found.length === 0) throw new Error(`no interface ${name} in ${file}`);
  return found;
}

/** The README's options table: option name -> its row. */
function optionRows(): Map<string, string> {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
  const table = readme.split('### `createEngine` options')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, string>();
  for (const line of table.split('\n')) {
    const m = /^\| `(\w+)` \|/.exec(line);
    if (m?.[1] !== undefined) rows.set(m[1], line);
  }
  return rows;
}

describe("README's createEngine options", () => {
  const rows = optionRows();

  it('has a row for every option of createEngine', () => {
    const options = [
      ...members('packages/core/src/engine-options.ts', 'EngineOptions'),
      ...members('packages/tandem/src/create-engine.ts', 'CreateEngineOptions'),
      ...members('packages/tandem/src/default-backends.ts', 'FactoryOptions'),
    ];
    expect([...new Set(options)].filter((o) => !rows.has(o))).toEqual([]);
    expect([...rows.keys()].filter((r) => !options.includes(r))).toEqual([]);
  });

  it.each([
    ['scheduler', DEFAULT_SCHEDULER_CONFIG, ['forceCpu']],
    ['costModel', DEFAULT_COST_MODEL_CONFIG, []],
    ['tracker', DEFAULT_TRACKER_CONFIG, []],
    ['decisionCache', DEFAULT_DECISION_CACHE_CONFIG, []],
  ] as const)('names every field of %s with its default', (option, defaults, notOptions) => {
    const row = rows.get(option) ?? '';
    for (const [field, value] of Object.entries(defaults)) {
      if ((notOptions as readonly string[]).includes(field)) continue;
      const shown = typeof value === 'object' ? '`{}`' : String(value);
      expect(row, `${option}.${field}`).toMatch(
        new RegExp(`\`${field}\` \\(${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ :)]`),
      );
    }
  });
});
