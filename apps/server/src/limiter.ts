// Admission control: a semaphore with a bounded FIFO queue. At most `concurrency` requests hold a slot, `queue`
// more wait in arrival order, and past that acquire() fails at once with OverloadedError, which the server answers
// with 503 and Retry-After: shedding load beats letting every request wait longer.
import { InvalidArgumentError } from '@tandem/core';

/** A limiter's size. */
export interface LimiterSettings {
  /** Most holders at once, an integer >= 1. */
  readonly concurrency: number;
  /** Most waiters beyond those, an integer >= 0. */
  readonly queue: number;
}

/** Counters and gauges of one limiter. */
export interface LimiterStats {
  /** Slots held now. */
  readonly active: number;
  /** Waiters now. */
  readonly queued: number;
  /** Acquisitions granted so far. */
  readonly admitted: number;
  /** Acquisitions refused with OverloadedError so far. */
  readonly shed: number;
  /** Waiters that gave up (their signal aborted) before a slot came. */
  readonly abandoned: number;
}

/** Frees a slot; calling it again does nothing. */
export type Release = () => void;

/** acquire() found the limiter and its queue full. */
export class OverloadedError extends Error {
  override readonly name = 'OverloadedError';
  /** The limiter that refused. */
  readonly limiter: string;
  /** Seconds after which a retry is likely to be admitted (>= 1). */
  readonly retryAfterS: number;
  constructor(limiter: string, settings: LimiterSettings, retryAfterS: number) {
    super(
      `the ${limiter} limit is reached (${settings.concurrency} running, ${settings.queue} waiting): retry after ${retryAfterS} s`,
    );
    this.limiter = limiter;
    this.retryAfterS = retryAfterS;
  }
}

/** The waiter gave up before a slot came. */
export class AbandonedError extends Error {
  override readonly name = 'AbandonedError';
}

/** Throws InvalidArgumentError naming `argument` unless `settings` are integers in range. */
export function checkLimiterSettings(argument: string, settings: LimiterSettings): void {
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1) {
    throw new InvalidArgumentError(`${argument}.concurrency`, settings.concurrency, 'must be an integer >= 1');
  }
  if (!Number.isInteger(settings.queue) || settings.queue < 0)
    throw new InvalidArgumentError(`${argument}.queue`, settings.queue, 'must be an integer >= 0');
}

/** Weight of the newest hold time in the running mean that Retry-After is estimated from. */
const HOLD_SMOOTHING = 0.2;

/** A queued acquire(): hands it a slot. */
interface Waiter {
  /** Resolves the waiting acquire() with the slot's release. */
  readonly grant: (release: Release) => void;
}

/** A concurrency limit with a bounded queue (see the top of this file). */
export class Limiter {
  /** Name in errors and metrics. */
  readonly name: string;
  /** Its size. */
  readonly settings: LimiterSettings;
  private readonly waiters: Waiter[] = [];
  private readonly now: () => number;
  private active = 0;
  private admitted = 0;
  private shed = 0;
  private abandoned = 0;
  private releases = 0;
  private meanHoldMs = 0;

  constructor(name: string, settings: LimiterSettings, now: () => number = () => performance.now()) {
    checkLimiterSettings(`limits.${name}`, settings);
    this.name = name;
    this.settings = { concurrency: settings.concurrency, queue: settings.queue };
    this.now = now;
  }

  /** True when acquire() would be refused now. */
  full(): boolean {
    return this.active >= this.settings.concurrency && this.waiters.length >= this.settings.queue;
  }

  /** The OverloadedError acquire() would reject with now, counted as shed; undefined while there is room. */
  shedIfFull(): OverloadedError | undefined {
    if (!this.full()) return undefined;
    this.shed++;
    return new OverloadedError(this.name, this.settings, this.retryAfterS());
  }

  /**
   * A slot: at once when one is free, after the waiters ahead of it otherwise. Rejects with OverloadedError when
   * the queue is full, and with AbandonedError when `signal` aborts while it waits.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted === true) return Promise.reject(new AbandonedError(`${this.name}: aborted before acquiring`));
    if (this.active < this.settings.concurrency) {
      this.active++;
      return Promise.resolve(this.grant());
    }
    const refused = this.shedIfFull();
    if (refused !== undefined) return Promise.reject(refused);
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at < 0) return;
        this.waiters.splice(at, 1);
        this.abandoned++;
        reject(new AbandonedError(`${this.name}: gave up waiting`));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Seconds until a slot is likely free for a newcomer: the waiters ahead and the running mean hold time (>= 1). */
  retryAfterS(): number {
    const ahead = this.waiters.length + 1;
    return Math.max(1, Math.ceil((ahead * this.meanHoldMs) / this.settings.concurrency / 1000));
  }

  /** Counters and gauges now. */
  stats(): LimiterStats {
    return {
      active: this.active,
      queued: this.waiters.length,
      admitted: this.admitted,
      shed: this.shed,
      abandoned: this.abandoned,
    };
  }

  /** A release for a slot just taken (this.active already counts it). */
  private grant(): Release {
    this.admitted++;
    const since = this.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = this.now() - since;
      this.releases++;
      this.meanHoldMs = this.releases === 1 ? held : this.meanHoldMs + HOLD_SMOOTHING * (held - this.meanHoldMs);
      const next = this.waiters.shift();
      if (next === undefined) this.active--;
      else next.grant(this.grant()); // the slot passes to the next waiter: active stays the same
    };
  }
}
