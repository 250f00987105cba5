// Buffer planning: every intermediate is freed right after its last reader (reference counts from build), so the
// buffers alive on the device stay bounded across runs; weights stay; caller-owned inputs are never freed.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { add, mul, ReferenceBackend, scale, silu, topK } from '@tandem/reference';
import { GraphBuilder } from './graph-builder.ts';
import { CountingBackend } from './test-support/counting-backend.ts';

async function setup() {
  const device = new CountingBackend(new ReferenceBackend());
  const engine = await Engine.create({ backends: [device] });
  const g = new GraphBuilder(engine, { name: 'chain' });
  const x = g.input('x', 'f32', [4, 8]);
  const w = g.constantFrom(
    'w',
    Float32Array.from({ length: 8 }, (_, i) => i + 1),
    [8],
  );
  const a = g.scale('a', x, 2);
  const b = g.silu('b', a);
  const c = g.add('c', b, a); // a is read twice: freed after c, not after b
  const d = g.mul('d', c, w);
  const f = g.scale('f', g.reshape(d, [32], 'd.flat'), 0.5); // d stays alive until its view's reader ran
  const [values] = g.node('top', { op: 'topK', x: g.reshape(f, [4, 8], 'f.rows'), k: 2 }); // indices are never read
  if (values === undefined) throw new Error('topK has no values output');
  g.output('values', values);
  return { device, engine, graph: g.build() };
}

/** The chain on the reference: topK(scale(mul(add(silu(a), a), w), 0.5)) with a = scale(x, 2). */
function expected(x: Float32Array): number[] {
  const w = Float32Array.from({ length: 8 }, (_, i) => i + 1);
  const a = scale(x, 2);
  return Array.from(topK(scale(mul(add(silu(a), a), w), 0.5), 4, 8, 2).values);
}

describe('buffer planning', () => {
  it('frees intermediates after their last reader; only the weight and the output stay', async () => {
    const { device, graph } = await setup();
    const x = Float32Array.from({ length: 32 }, (_, i) => Math.sin(i));
    const run = await graph.run({ x });
    const got = await run.outputs.get('values').read();
    expected(x).forEach((v, i) => {
      expect(got[i]).toBeCloseTo(v, 5);
    });
    // On the device: w and the output. x (uploaded by the run) and the intermediates a, b, c, d, f and topK's indices are gone.
    expect(device.live.size).toBe(2);
    expect(run.report.leakedTensors).toBe(0);
    // At most a, b and c alive together (c is computed while a and b are still needed).
    expect(run.report.peakLiveTensors).toBe(3);
    expect(device.peak).toBeLessThanOrEqual(4); // + the weight
    run.outputs.dispose();
    expect(device.live.size).toBe(1);
  });

  it('stays bounded across many runs; caller-owned inputs and weights are not freed', async () => {
    const { device, engine, graph } = await setup();
    const x = engine.tensor(
      Float32Array.from({ length: 32 }, (_, i) => i / 8),
      [4, 8],
    );
    const liveAfter: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < 20; i++) {
      device.resetPeak();
      const run = await graph.run({ x });
      run.outputs.dispose();
      liveAfter.push(device.live.size);
      peaks.push(device.peak);
    }
    expect(new Set(liveAfter)).toEqual(new Set([2])); // x (caller's) and w
    expect(Math.max(...peaks)).toBeLessThanOrEqual(5);
    expect(x.disposed).toBe(false);
    const again = await graph.run({ x });
    expect(again.report.nodes.map((n) => n.name)).toEqual(['a', 'b', 'c', 'd', 'f', 'top']);
    again.outputs.dispose();
  });

  it('frees everything it owns when a node fails mid-run', async () => {
    const { device, engine, graph } = await setup();
    const x = engine.tensor(new Float32Array(32), [4, 8]);
    await graph.run({ x }).then((r) => r.outputs.dispose()); // w is now resident
    const before = device.live.size;
    const broken = new GraphBuilder(engine, { name: 'broken' });
    const input = broken.input('x', 'f32', [4, 8]);
    const h = broken.scale('h', input, 2);
    broken.output('y', broken.silu('y', h));
    const g = broken.build();
    const original = device.run.bind(device);
    device.run = (op, outputs) => (op.op === 'silu' ? Promise.reject(new Error('boom')) : original(op, outputs));
    await expect(g.run({ x })).rejects.toThrow(/^y: silu failed on every capable backend/);
    expect(device.live.size).toBe(before); // h was freed
  });
});
