// The options object every call takes (strategy, label, signal): checked before any work, aborts that blame no
// backend, and `await using` on engines and tensors.
import { describe, expect, it } from 'vitest';
import { AbortedError, Engine, InvalidArgumentError, OP_KINDS, type OpKind } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultSchedule } from '@tandem/testing';
import { caught } from '../support/caught.ts';

async function engineWithHang(hangMs: number): Promise<{ engine: Engine; faulty: FaultInjectingBackend }> {
  const faulty = new FaultInjectingBackend(new ReferenceBackend(), faultSchedule({ 1: 'hang' }), {
    name: 'slow',
    hangMs,
  });
  const engine = await Engine.create({ backends: [faulty, new ReferenceBackend({ fallbackOnly: true })] });
  return { engine, faulty };
}

describe('call options', () => {
  it('refuses unknown keys, unknown strategies and backends, naming them and what is accepted', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const x = engine.tensor(new Float32Array([1, 2]), [1, 2]);
    await expect(engine.matmul(x, engine.tensor([1, 1], [2, 1]), { stratgey: 'auto' } as never)).rejects.toThrow(
      /^matmul\.options\.stratgey = "auto": is not an option here \(accepted: strategy, label, signal\)$/,
    );
    await expect(engine.run({ op: 'silu', x }, { strategy: 'fastest' as never })).rejects.toThrow(
      /^run\.options\.strategy = "fastest": must be 'auto', 'gpu-preferred', 'cpu-preferred' or \{ only: <backend name> \}$/,
    );
    const unknownBackend = await engine.silu(x, { strategy: { only: 'cuda' } }).catch((e: unknown) => e);
    expect(unknownBackend).toBeInstanceOf(InvalidArgumentError);
    expect(unknownBackend).toMatchObject({
      argument: 'silu.options.strategy.only',
      value: 'cuda',
      limit: 'is not a backend of this engine (backends: reference)',
    });
    expect(caught(() => engine.explain({ op: 'silu', x }, { strategy: { only: 'cuda' } }))).toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(engine.softmax(x, { axis: 0 })).rejects.toThrow(
      /^softmax\.options\.axis = 0: only the last axis is supported \(-1 or 1\)$/,
    );
    await expect(engine.softmax(x, { causal: true, dim: 1 } as never)).rejects.toThrow(
      /^softmax\.options\.dim = 1: is not an option here \(accepted: causal, axis, strategy, label, signal\)$/,
    );
    expect(await (await engine.softmax(x, { axis: -1 })).read()).toEqual(
      await (await engine.softmax(x, { axis: 1 })).read(),
    );
    await expect(Engine.create({ backends: [new ReferenceBackend()], strategy: 'fast' as never })).rejects.toThrow(
      /^createEngine\.strategy = "fast"/,
    );
    const unknownDefault = await Engine.create({
      backends: [new ReferenceBackend()],
      strategy: { only: 'cuda' },
    }).catch((e: unknown) => e);
    expect(unknownDefault).toBeInstanceOf(InvalidArgumentError);
    expect(unknownDefault).toMatchObject({
      argument: 'createEngine.strategy.only',
      value: 'cuda',
      limit: 'is not a backend of this engine (backends: reference)',
    });
  });

  it('every op method takes the call options: an unknown key, a bad strategy, label or signal is refused by name, before any work', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const m = engine.random([2, 2], { seed: 1 });
    const x3 = engine.random([2, 2, 4], { seed: 2 });
    const graph = {
      rowPtr: engine.tensor(Uint32Array.of(0, 0), [2]),
      colIdx: engine.zeros([0], 'u32'),
      weights: engine.zeros([0]),
    };
    const spread = { decay: 0.5, threshold: 0, iterations: 1 };
    /** Each op method called with `extra` merged into its options; none is missing (checked against OP_KINDS below). */
    const calls: Record<OpKind, (extra: object) => Promise<unknown>> = {
      matmul: (o) => engine.matmul(m, m, o),
      quantizedMatmul: (o) => engine.quantizedMatmul(engine.zeros([1, 32]), engine.zeros([2, 32], 'q8_0'), o),
      dequantize: (o) => engine.dequantize(engine.zeros([32], 'q4_0'), o),
      add: (o) => engine.add(m, m, o),
      mul: (o) => engine.mul(m, m, o),
      scale: (o) => engine.scale(m, 2, o),
      softmax: (o) => engine.softmax(m, { causal: true, ...o }),
      rmsNorm: (o) => engine.rmsNorm(m, { eps: 1e-6, ...o }),
      rope: (o) => engine.rope(x3, { base: 500, ...o }),
      silu: (o) => engine.silu(m, o),
      gelu: (o) => engine.gelu(m, o),
      swiglu: (o) => engine.swiglu(m, m, o),
      attention: (o) => engine.attention(x3, x3, x3, { causal: true, ...o }),
      cosineSimilarity: (o) => engine.cosineSimilarity(m, m, o),
      topK: (o) => engine.topK(m, 1, o),
      spreadActivation: (o) => engine.spreadActivation(graph, engine.ones([1]), { ...spread, ...o }),
      concat: (o) => engine.concat(m, m, o),
    };
    expect(Object.keys(calls).sort()).toEqual([...OP_KINDS].sort());
    const ran = (): number => engine.telemetry.opEvents().length;
    for (const [method, call] of Object.entries(calls)) {
      const before = ran();
      await expect(call({ stratgey: 'auto' }), method).rejects.toMatchObject({
        name: 'InvalidArgumentError',
        argument: `${method}.options.stratgey`,
      });
      await expect(call({ strategy: 'fastest' }), method).rejects.toMatchObject({
        argument: `${method}.options.strategy`,
      });
      await expect(call({ strategy: { only: 'cuda' } }), method).rejects.toMatchObject({
        argument: `${method}.options.strategy.only`,
      });
      await expect(call({ label: 7 }), method).rejects.toMatchObject({
        argument: `${method}.options.label`,
        limit: 'must be a string',
      });
      await expect(call({ signal: 'stop' }), method).rejects.toMatchObject({
        argument: `${method}.options.signal`,
        limit: 'must be an AbortSignal',
      });
      await expect(call({ signal: AbortSignal.abort() }), method).rejects.toBeInstanceOf(AbortedError);
      expect(ran(), `${method} ran despite bad options`).toBe(before);
      // The same options object run() takes is honoured: the label reaches the telemetry, the strategy the decision.
      await call({ strategy: { only: 'reference' }, label: `via ${method}` });
      expect(engine.telemetry.opEvents().at(-1), method).toMatchObject({
        label: `via ${method}`,
        backend: 'reference',
        ok: true,
      });
    }
    await engine.dispose();
  });

  it('explain() takes the same options object as run() (strategy decides; label and signal are checked, nothing runs)', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const x = engine.ones([2]);
    const options = {
      strategy: { only: 'reference' },
      label: 'same object',
      signal: new AbortController().signal,
    } as const;
    expect(engine.explain({ op: 'silu', x }, options).selection.backend).toBe('reference');
    expect(caught(() => engine.explain({ op: 'silu', x }, { label: 1 } as never))).toMatchObject({
      argument: 'explain.options.label',
    });
    expect(caught(() => engine.explain({ op: 'silu', x }, { causal: true } as never))).toMatchObject({
      argument: 'explain.options.causal',
    });
    await engine.dispose();
  });

  it('labels the call in telemetry and honours a per-call strategy', async () => {
    const named = (name: string) => new FaultInjectingBackend(new ReferenceBackend(), () => undefined, { name });
    const engine = await Engine.create({ backends: [named('a'), named('b')] });
    const x = engine.tensor(new Float32Array([1, -1]), [2]);
    await engine.silu(x, { strategy: { only: 'b' }, label: 'mine' });
    const event = engine.telemetry.opEvents().at(-1);
    expect(event).toMatchObject({ op: 'silu', backend: 'b', label: 'mine', ok: true });
  });

  it('an abort before the call starts rejects at once and runs nothing', async () => {
    const { engine, faulty } = await engineWithHang(10_000);
    const x = engine.tensor(new Float32Array([1]), [1]);
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const error = await engine.silu(x, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: 'ABORTED', message: 'silu was aborted: user left' });
    expect(faulty.calls).toBe(0);
  });

  it('an abort while a backend runs rejects with AbortedError, tries no fallback and counts against no backend', async () => {
    const { engine, faulty } = await engineWithHang(200);
    const x = engine.tensor(new Float32Array([1, 2]), [2]);
    const controller = new AbortController();
    const call = engine.silu(x, { strategy: { only: 'slow' }, signal: controller.signal });
    while (faulty.calls === 0) await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(AbortedError);
    expect(faulty.injected.hang).toBe(1);
    const failed = engine.telemetry.opEvents().filter((e) => !e.ok);
    expect(failed).toEqual([]);
    expect(engine.trackerStats().every((s) => s.failures === 0 && s.circuit === 'closed')).toBe(true);
    // The same backend serves the next call.
    expect(await (await engine.silu(x, { strategy: { only: 'slow' } })).read()).toHaveLength(2);
  });

  it('`await using` disposes engines and tensors at the end of the block', async () => {
    let escaped: Engine | undefined;
    let tensorDisposed = false;
    {
      await using engine = await Engine.create({ backends: [new ReferenceBackend()] });
      escaped = engine;
      {
        using t = engine.tensor(new Float32Array([1]), [1]);
        expect(t.disposed).toBe(false);
        await using u = engine.tensor(new Float32Array([2]), [1]);
        expect(u.disposed).toBe(false);
        tensorDisposed = t.disposed;
      }
    }
    expect(tensorDisposed).toBe(false);
    expect(() => escaped?.tensor(new Float32Array([1]), [1])).toThrow(/engine was used after dispose\(\)/);
  });
});
