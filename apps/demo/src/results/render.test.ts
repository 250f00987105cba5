import { describe, expect, it } from 'vitest';
import { parseBenchIndex, parseBenchSuite, suitePlotFiles, type BenchSuite } from './bench-format.ts';
import { formatCell, groupBySection } from './render.ts';

describe('bench results', () => {
  it('accepts a suite file and rejects other JSON with the reason', () => {
    const good = parseBenchSuite({
      suite: 'memory',
      date: '2026-11-22T11:47:45.064Z',
      machine: { cores: 2 },
      rows: [{ section: 'a', x: 1, ok: true }],
      verdicts: ['fine'],
    });
    expect(good.ok && good.suite.rows).toEqual([{ section: 'a', x: 1, ok: true }]);
    expect(parseBenchSuite({ traceEvents: [] })).toEqual({ ok: false, reason: 'no "suite" name' });
    expect(parseBenchSuite({ suite: 's', date: 'd', rows: [{ nested: { a: 1 } }] })).toEqual({
      ok: false,
      reason: 'rows[0] is not an object of numbers, strings and booleans',
    });
  });

  it('checks the index', () => {
    expect(parseBenchIndex({ suites: [{ file: 'a.json', suite: 'a', date: 'd' }], plots: ['a.svg'] }).plots).toEqual([
      'a.svg',
    ]);
    expect(() => parseBenchIndex({ suites: [{ file: 1 }], plots: [] })).toThrow(
      'each suite needs file, suite and date',
    );
  });

  it('groups rows by section in first-seen order and formats cells', () => {
    const groups = groupBySection([{ section: 'b', v: 1 }, { v: 2 }, { section: 'b', v: 3 }]);
    expect([...groups.keys()]).toEqual(['b', '']);
    expect(groups.get('b')?.length).toBe(2);
    expect([
      formatCell(1234),
      formatCell(3.14172),
      formatCell(0.000123456),
      formatCell(250.04),
      formatCell(true),
      formatCell(undefined),
    ]).toEqual(['1,234', '3.142', '0.000123', '250.0', 'yes', '']);
  });

  it('reads the plots a suite names and finds their SVGs, or every <suite>-*.svg for files without plots', () => {
    const parsed = parseBenchSuite({
      suite: 'web',
      date: 'd',
      rows: [],
      verdicts: [],
      plots: [{ id: 'a', title: 'A', series: [] }, { title: 'no id' }, 'junk', { id: 'b' }],
    });
    expect(parsed.ok && parsed.suite.plots).toEqual([
      { id: 'a', title: 'A' },
      { id: 'b', title: 'b' },
    ]);
    const named: BenchSuite = {
      suite: 'web',
      date: 'd',
      machine: {},
      rows: [],
      verdicts: [],
      plots: [
        { id: 'a', title: 'A' },
        { id: 'b', title: 'B' },
      ],
    };
    const files = ['web-a.svg', 'web-old.svg', 'webgpu-x.svg'];
    expect(suitePlotFiles(named, files)).toEqual({
      shown: [{ file: 'web-a.svg', title: 'A' }],
      missing: ['web-b.svg'],
    });
    expect(suitePlotFiles({ ...named, plots: [] }, files).shown.map((p) => p.file)).toEqual([
      'web-a.svg',
      'web-old.svg',
    ]);
  });
});
