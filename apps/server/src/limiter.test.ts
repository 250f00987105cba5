// The limiter on its own: slots, the FIFO queue, shedding past it, abandoning waiters, Retry-After from hold times.
import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { AbandonedError, Limiter, OverloadedError, type Release } from './limiter.ts';

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('Limiter', () => {
  it('grants `concurrency` slots at once, queues `queue` more in order, and refuses past that', async () => {
    const limiter = new Limiter('test', { concurrency: 2, queue: 2 });
    const first = await limiter.acquire();
    await limiter.acquire();
    const order: string[] = [];
    const third = limiter.acquire().then((release) => (order.push('third'), release));
    const fourth = limiter.acquire().then((release) => (order.push('fourth'), release));
    expect(limiter.stats()).toMatchObject({ active: 2, queued: 2 });
    expect(limiter.full()).toBe(true);
    await expect(limiter.acquire()).rejects.toBeInstanceOf(OverloadedError);
    expect(limiter.stats().shed).toBe(1);
    first();
    const releaseThird = await third;
    expect(order).toEqual(['third']);
    expect(limiter.stats()).toMatchObject({ active: 2, queued: 1, admitted: 3 });
    releaseThird();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(limiter.stats()).toMatchObject({ active: 2, queued: 0, admitted: 4, shed: 1 });
  });

  it('a release called twice frees one slot', async () => {
    const limiter = new Limiter('test', { concurrency: 1, queue: 0 });
    const release = await limiter.acquire();
    release();
    release();
    expect(limiter.stats().active).toBe(0);
    await limiter.acquire();
    expect(limiter.stats().active).toBe(1);
    await expect(limiter.acquire()).rejects.toBeInstanceOf(OverloadedError);
  });

  it('a waiter whose signal aborts leaves the queue and is counted as abandoned; the next waiter moves up', async () => {
    const limiter = new Limiter('test', { concurrency: 1, queue: 2 });
    const release = await limiter.acquire();
    const gone = new AbortController();
    const leaving = limiter.acquire(gone.signal);
    const staying = limiter.acquire();
    gone.abort();
    await expect(leaving).rejects.toBeInstanceOf(AbandonedError);
    expect(limiter.stats()).toMatchObject({ queued: 1, abandoned: 1 });
    release();
    const next: Release = await staying;
    expect(limiter.stats()).toMatchObject({ active: 1, queued: 0 });
    next();
    expect(limiter.stats().active).toBe(0);
    await expect(limiter.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(AbandonedError);
  });

  it('shedIfFull refuses only while full, and counts what it refuses', async () => {
    const limiter = new Limiter('test', { concurrency: 1, queue: 0 });
    expect(limiter.shedIfFull()).toBeUndefined();
    await limiter.acquire();
    const refused = limiter.shedIfFull();
    expect(refused).toBeInstanceOf(OverloadedError);
    expect(refused?.message).toContain('test limit');
    expect(limiter.stats().shed).toBe(1);
  });

  it('Retry-After grows with the mean hold time and the waiters ahead, and is at least 1 s', async () => {
    const clock = manualClock();
    const limiter = new Limiter('test', { concurrency: 1, queue: 3 }, clock.now);
    expect(limiter.retryAfterS()).toBe(1);
    const release = await limiter.acquire();
    clock.advance(4000);
    release();
    await limiter.acquire(); // mean hold 4 s, one holder, nobody waiting
    expect(limiter.retryAfterS()).toBe(4);
    void limiter.acquire();
    void limiter.acquire();
    void limiter.acquire();
    const refused = await limiter.acquire().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OverloadedError);
    expect(refused instanceof OverloadedError ? refused.retryAfterS : 0).toBe(16); // 3 waiting + the newcomer, 4 s each
  });

  it.each([
    [{ concurrency: 0, queue: 1 }, 'limits.bad.concurrency'],
    [{ concurrency: 1.5, queue: 1 }, 'limits.bad.concurrency'],
    [{ concurrency: 1, queue: -1 }, 'limits.bad.queue'],
    [{ concurrency: 1, queue: Number.NaN }, 'limits.bad.queue'],
  ])('settings %o are refused naming %s', (settings, argument) => {
    expect(() => new Limiter('bad', settings)).toThrow(InvalidArgumentError);
    expect(() => new Limiter('bad', settings)).toThrow(argument);
  });
});
