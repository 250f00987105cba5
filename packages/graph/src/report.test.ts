// combineReports: several graph runs (one per layer of a model, say) as one report.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { GraphBuilder } from './graph-builder.ts';
import { combineReports, formatReport, SAME_REASON, type NodeRecord, type RunReport } from './report.ts';

describe('combineReports', () => {
  it("concatenates the runs' nodes, sums bytes and host time, and keeps the caller's total", async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const build = (name: string) => {
      const g = new GraphBuilder(engine, { name });
      g.output('y', g.silu(`${name}.act`, g.scale(`${name}.scale`, g.input('x', 'f32', [2, 4]), 2)));
      return g.build();
    };
    const [first, second] = [build('layer0'), build('layer1')];
    const one = await first.run({ x: new Float32Array(8).fill(1) });
    const two = await second.run({ x: one.outputs.get('y') });
    const combined = combineReports('two layers', [one.report, two.report], {
      hostMs: 0.5,
      bytesMoved: 16,
      totalMs: 42,
    });
    expect(combined.graph).toBe('two layers');
    expect(combined.nodes.map((n) => n.name)).toEqual(['layer0.scale', 'layer0.act', 'layer1.scale', 'layer1.act']);
    expect(combined.strategy).toBe(one.report.strategy); // the same strategy once
    expect(combined.totalMs).toBe(42);
    expect(combined.hostMs).toBeCloseTo(one.report.hostMs + two.report.hostMs + 0.5, 12);
    expect(combined.bytesMoved).toBe(one.report.bytesMoved + two.report.bytesMoved + 16);
    expect(combined.byBackend['reference']?.nodes).toBe(4);
    expect(combined.leakedTensors).toBe(0);
    one.outputs.get('y').dispose();
    two.outputs.get('y').dispose();
    await engine.dispose();
  });
});

describe('formatReport', () => {
  const node = (name: string, backend: string, reason: string): NodeRecord => ({
    name,
    op: 'silu',
    backend,
    reasonKind: 'graph-plan',
    reason,
    attempts: 1,
    ms: 0.1,
    kernelMs: 0.05,
    bytesMoved: 0,
    estimatedMs: 0.1,
    callId: -1,
  });

  it("prints a segment's reason once, on its first node, and again where the backend or the reason changes", async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const g = new GraphBuilder(engine, { name: 'block' });
    g.output('y', g.silu('act', g.scale('scale', g.input('x', 'f32', [2, 4]), 2)));
    const { outputs, report: real } = await g.build().run({ x: new Float32Array(8) });
    outputs.dispose();
    const long = `graph plan: a segment of 3 nodes on wasm, ${'x'.repeat(120)}`;
    const report: RunReport = {
      ...real,
      nodes: [
        node('a', 'wasm', long),
        node('b', 'wasm', long),
        node('c', 'wasm', long),
        node('d', 'webgpu', long),
        node('e', 'webgpu', 'cost-model'),
      ],
    };
    const reasons = formatReport(report)
      .split('\n')
      .slice(2)
      .map((line) => line.slice(65));
    expect(reasons).toEqual([long, SAME_REASON, SAME_REASON, long, 'cost-model']);
    expect(formatReport(report).split(long).length - 1).toBe(2);
    await engine.dispose();
  });
});
