// The options object every call takes (strategy, label, signal): checked before any work, aborts that blame no
// backend, and `await using` on engines and tensors.
import { describe, expect, it } from 'vitest';
import { AbortedError, Engine, InvalidArgumentError } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultSchedule } from '@tandem/testing';

async function engineWithHang(hangMs: number): Promise<{ engine: Engine; faulty: FaultInjectingBackend }> {
  const faulty = new FaultInjectingBackend(new ReferenceBackend(), faultSchedule({ 1: 'hang' }), { name: 'slow', hangMs });
  const engine = await Engine.create({ backends: [faulty, new ReferenceBackend({ fallbackOnly: true })] });
  return { engine, faulty };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('call options', () => {
  it('refuses unknown keys, unknown strategies and backends, naming them and what is accepted', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const x = engine.tensor(new Float32Array([1, 2]), [1, 2]);
    await expect(engine.matmul(x, engine.tensor([1, 1], [2, 1]), { stratgey: 'auto' } as never)).rejects.toThrow(
      /^run\.options\.stratgey = "auto": is not an option here \(accepted: strategy, label, signal\)$/,
    );
    await expect(engine.run({ op: 'silu', x }, { strategy: 'fastest' as never })).rejects.toThrow(
      /^run\.options\.strategy = "fastest": must be 'auto', 'gpu-preferred', 'cpu-preferred' or \{ only: <backend name> \}$/,
    );
    const unknownBackend = await engine.silu(x, { strategy: { only: 'cuda' } }).catch((e: unknown) => e);
    expect(unknownBackend).toBeInstanceOf(InvalidArgumentError);
    expect(unknownBackend).toMatchObject({ argument: 'run.options.strategy.only', value: 'cuda', limit: 'is not a backend of this engine (backends: reference)' });
    expect(caught(() => engine.explain({ op: 'silu', x }, { strategy: { only: 'cuda' } }))).toBeInstanceOf(InvalidArgumentError);
    await expect(engine.softmax(x, { axis: 0 })).rejects.toThrow(/^softmax\.options\.axis = 0: only the last axis is supported \(-1 or 1\)$/);
    await expect(engine.softmax(x, { causal: true, dim: 1 } as never)).rejects.toThrow(/^softmax\.options\.dim = 1: is not an option here \(accepted: causal, axis, strategy, label, signal\)$/);
    expect(await (await engine.softmax(x, { axis: -1 })).read()).toEqual(await (await engine.softmax(x, { axis: 1 })).read());
    await expect(Engine.create({ backends: [new ReferenceBackend()], strategy: 'fast' as never })).rejects.toThrow(/^createEngine\.strategy = "fast"/);
    const unknownDefault = await Engine.create({ backends: [new ReferenceBackend()], strategy: { only: 'cuda' } }).catch((e: unknown) => e);
    expect(unknownDefault).toBeInstanceOf(InvalidArgumentError);
    expect(unknownDefault).toMatchObject({ argument: 'createEngine.strategy.only', value: 'cuda', limit: 'is not a backend of this engine (backends: reference)' });
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
