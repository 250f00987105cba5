// Build-time validation names the node (or view, input, output); run-time input checks name the input.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend } from '@tandem/testing';
import { GraphRunError, GraphValidationError } from './errors.ts';
import { GraphBuilder } from './graph-builder.ts';

const engine = await Engine.create({ backends: [new ReferenceBackend()] });

function builder(name = 'layer0'): GraphBuilder {
  return new GraphBuilder(engine, { name });
}

describe('build-time validation', () => {
  it("names the node in a shape error, with core's rule", () => {
    const g = builder();
    const x = g.input('x', 'f32', [2, 3]);
    const w = g.constantFrom('layer0.attn.k_proj.weight', new Float32Array(20), [4, 5]);
    expect(() => g.matmul('layer0.attn.k_proj', x, w)).toThrow(
      'layer0.attn.k_proj: matmul.b.shape[0] = 4: must equal a.shape[1] (3)',
    );
    try {
      g.matmul('layer0.attn.k_proj', x, w);
    } catch (error) {
      expect(error).toBeInstanceOf(GraphValidationError);
      expect(error).toMatchObject({ node: 'layer0.attn.k_proj', code: 'GRAPH_INVALID' });
    }
  });

  it('names the node in a dtype error', () => {
    const g = builder();
    const ids = g.input('ids', 'i32', [4, 8]);
    expect(() => g.rmsNorm('layer0.attn_norm', ids, undefined)).toThrow(
      /^layer0\.attn_norm: rmsNorm\.x\.dtype = "i32": must be one of f32$/,
    );
    const w = g.constantFrom('w', new Uint8Array(34 * 2), [2, 32], 'q8_0');
    const x = g.input('x', 'f32', [3, 64]);
    expect(() => g.quantizedMatmul('layer0.ffn.up_proj', x, w)).toThrow(
      'layer0.ffn.up_proj: quantizedMatmul.w.shape[1] = 32: must equal x.shape[1] (64)',
    );
  });

  it('names the view in a view error, and refuses to reshape a permuted view', () => {
    const g = builder();
    const x = g.input('x', 'f32', [2, 3]);
    expect(() => g.reshape(x, [4, 2], 'layer0.q_heads')).toThrow(
      'layer0.q_heads: reshape.shape = [4, 2]: must have 6 elements like [2, 3]',
    );
    const t = g.transpose(x, 'layer0.xT');
    expect(t.shape).toEqual([3, 2]);
    expect(() => g.reshape(t, [6])).toThrow(/^layer0\.xT\.reshape: reshape\.this = \[3, 2\]: must be contiguous/);
    expect(() => g.slice(x, 1, 5, 'rows')).toThrow('rows: slice.end = 5: must be an integer in [1, 2]');
    expect(() => g.permute(x, [0, 0], 'p')).toThrow('p: permute.axes = [0, 0]: must be a permutation of 0..1');
  });

  it('checks names, ownership and outputs', () => {
    const g = builder();
    const x = g.input('x', 'f32', [2, 2]);
    g.scale('s', x, 2);
    expect(() => g.scale('s', x, 3)).toThrow('s: name already used by a node');
    expect(() => g.input('x', 'f32', [1])).toThrow('x: name already used by an input');
    expect(() => g.input('bad', 'f32', [2, -1])).toThrow('bad: bad.shape[1] = -1: must be a non-negative integer');
    const other = builder('other').input('y', 'f32', [2, 2]);
    expect(() => g.add('mix', x, other)).toThrow('mix: add.b (y) belongs to another graph');
    const w = g.constantFrom('w', new Float32Array(4), [2, 2]);
    expect(() => g.output('w', w)).toThrow('output w: w is a constant; read the tensor directly instead');
    expect(() => builder('empty').build()).toThrow('empty: has no outputs (call output() before build())');
    g.output('y', g.scale('y', x, 1));
    g.build();
    expect(() => g.scale('late', x, 1)).toThrow('late: graph layer0 was already built; start a new GraphBuilder');
  });

  it('refuses an unknown run option, naming the graph and the keys it takes', async () => {
    const g = builder();
    g.output('y', g.scale('y', g.input('x', 'f32', [2, 2]), 2));
    const graph = g.build();
    await expect(graph.run({ x: new Float32Array(4) }, { stratgey: 'cpu-only' } as never)).rejects.toThrow(
      /^layer0\.run\.options\.stratgey = "cpu-only": is not an option here \(accepted: strategy, cpuBackend, gpuBackend, replay\)$/,
    );
    await expect(graph.run({ x: new Float32Array(4) }, { replay: 'yes' } as never)).rejects.toThrow(
      /^layer0\.run\.options\.replay = "yes": must be true or false$/,
    );
    graph.dispose();
  });

  it('prunes nodes no output depends on', () => {
    const g = builder();
    const x = g.input('x', 'f32', [2, 2]);
    g.silu('unused', x);
    g.output('y', g.scale('y', x, 2));
    const graph = g.build();
    expect(graph.nodes.map((n) => n.name)).toEqual(['y']);
    expect(graph.pruned).toEqual(['unused']);
  });
});

describe('run-time checks', () => {
  const g = builder('block');
  const x = g.input('x', 'f32', [2, 2]);
  g.output('y', g.scale('block.scale', x, 2));
  const graph = g.build();

  it('names a missing, misshapen or unknown input', async () => {
    await expect(graph.run({})).rejects.toThrow('block.inputs.x: is missing (f32 [2, 2])');
    await expect(graph.run({ x: engine.tensor(new Float32Array(6), [2, 3]) })).rejects.toThrow(
      'block.inputs.x: is f32 [2, 3]; the graph was built for f32 [2, 2]',
    );
    await expect(graph.run({ x: new Float32Array(3) })).rejects.toThrow(
      'block.inputs.x: tensor.data = "12 bytes": must be 16 bytes for shape [2, 2] f32',
    );
    await expect(graph.run({ x: new Float32Array(4), z: new Float32Array(1) })).rejects.toThrow(
      'block.inputs.z: is not an input of this graph (inputs: x)',
    );
  });

  it('says when gpu-only has no GPU to run on', async () => {
    await expect(graph.run({ x: new Float32Array(4) }, { strategy: 'gpu-only' })).rejects.toThrow(
      /^strategy gpu-only: no usable GPU backend \(none of kind gpu registered\)$/,
    );
    const run = await graph.run({ x: new Float32Array([1, 2, 3, 4]) }, { strategy: 'cpu-only' });
    expect([...(await run.outputs.get('y').read())]).toEqual([2, 4, 6, 8]);
    expect(run.report.nodes[0]).toMatchObject({
      name: 'block.scale',
      backend: 'reference',
      reasonKind: 'user-preference',
    });
  });

  it('names the node that failed on every backend', async () => {
    const failing = await Engine.create({
      backends: [new FaultInjectingBackend(new ReferenceBackend(), () => 'reject')],
    });
    const fg = new GraphBuilder(failing, { name: 'f' });
    const input = fg.input('x', 'f32', [2]);
    fg.output('y', fg.silu('f.act', fg.scale('f.scale', input, 2)));
    const error = await fg
      .build()
      .run({ x: new Float32Array(2) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphRunError);
    expect(error).toMatchObject({ node: 'f.scale' });
    expect(String(error)).toMatch(
      /f\.scale: scale failed on every capable backend \(reference: \[reference\] injected rejection on call 1\)/,
    );
  });
});
