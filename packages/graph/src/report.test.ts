// combineReports: several graph runs (one per layer of a model, say) as one report.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { GraphBuilder } from './graph-builder.ts';
import { combineReports } from './report.ts';

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
    const combined = combineReports('two layers', [one.report, two.report], { hostMs: 0.5, bytesMoved: 16, totalMs: 42 });
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
