import { describe, expect, it } from 'vitest';
import { COLD_CALLS_AFTER_IDLE, IDLE_GAP_MS, WarmthTracker } from './warmth.ts';

describe('WarmthTracker', () => {
  it('counts the first calls after an idle gap as cold, and calls that follow each other closely as warm', () => {
    const w = new WarmthTracker();
    const colds: boolean[] = [];
    let now = 0;
    const call = (gapMs: number): void => {
      now += gapMs;
      colds.push(w.begin('gpu', now));
      now += 0.1;
      w.end('gpu', now);
    };
    for (let i = 0; i < 4; i++) call(0.01); // the first call ever follows nothing known to be idle: warm
    call(IDLE_GAP_MS + 1);
    for (let i = 0; i < 3; i++) call(0.01);
    call(IDLE_GAP_MS - 1); // a shorter gap: still warm
    expect(COLD_CALLS_AFTER_IDLE).toBe(2);
    expect(colds).toEqual([false, false, false, false, true, true, false, false, false]);
  });

  it('measures the gap from the end of the previous call, not its start', () => {
    const w = new WarmthTracker();
    expect(w.begin('gpu', 0)).toBe(false);
    w.end('gpu', 0);
    expect(w.begin('gpu', IDLE_GAP_MS * 3)).toBe(true); // no call for 3 gaps
    w.end('gpu', IDLE_GAP_MS * 10); // a long call (a large op) ends
    expect(w.begin('gpu', IDLE_GAP_MS * 10 + 1)).toBe(true); // the second cold call after that gap
    w.end('gpu', IDLE_GAP_MS * 10 + 2);
    expect(w.begin('gpu', IDLE_GAP_MS * 10 + 3)).toBe(false);
  });

  it('keeps idleness per backend: a GPU left alone while the CPU worked is cold, the CPU is not', () => {
    const w = new WarmthTracker();
    let now = 0;
    const call = (backend: string): boolean => {
      const cold = w.begin(backend, now);
      now += 0.5;
      w.end(backend, now);
      return cold;
    };
    expect([call('gpu'), call('cpu')]).toEqual([false, false]);
    const cpu = Array.from({ length: 20 }, () => call('cpu')); // 10 ms of CPU calls back to back
    expect(cpu.every((cold) => !cold)).toBe(true);
    expect([call('gpu'), call('gpu'), call('gpu')]).toEqual([true, true, false]);
    expect(call('cpu')).toBe(false); // the CPU was idle for only 1.5 ms
  });

  it('counts a copy as cold inside or right after a cold call, and after an idle gap', () => {
    const w = new WarmthTracker();
    expect(w.copyIsCold('gpu', 0)).toBe(false); // nothing ran yet
    w.begin('gpu', 0);
    w.end('gpu', 1);
    expect(w.copyIsCold('gpu', 1.1)).toBe(false); // a warm call's result read at once
    expect(w.copyIsCold('gpu', 1 + IDLE_GAP_MS + 1)).toBe(true); // a read after the backend sat idle
    expect(w.begin('gpu', 1 + IDLE_GAP_MS + 1)).toBe(true);
    expect(w.copyIsCold('gpu', 1 + IDLE_GAP_MS + 1.5)).toBe(true); // an upload inside that cold call
    w.end('gpu', 1 + IDLE_GAP_MS + 2);
    expect(w.copyIsCold('gpu', 1 + IDLE_GAP_MS + 2.1)).toBe(true); // its result read at once
    w.begin('gpu', 1 + IDLE_GAP_MS + 2.2); // the second cold call
    w.end('gpu', 1 + IDLE_GAP_MS + 2.3);
    expect(w.begin('gpu', 1 + IDLE_GAP_MS + 2.4)).toBe(false);
    w.end('gpu', 1 + IDLE_GAP_MS + 2.5);
    expect(w.copyIsCold('gpu', 1 + IDLE_GAP_MS + 2.6)).toBe(false);
    expect(w.copyIsCold('cpu', 1 + IDLE_GAP_MS + 2.6)).toBe(false); // nothing ran on the cpu
  });

  it('counts a copy inside a warm call as warm however long that call runs (a copy inside a cold one as cold)', () => {
    const w = new WarmthTracker();
    expect(w.begin('gpu', 0)).toBe(false);
    w.end('gpu', 1);
    expect(w.begin('gpu', 1.5)).toBe(false); // follows closely: warm
    // An upload of the call's input long after the previous call ended, while the call still runs: not idle.
    expect(w.copyIsCold('gpu', 1.5 + IDLE_GAP_MS * 4)).toBe(false);
    w.end('gpu', 1.5 + IDLE_GAP_MS * 5);
    expect(w.copyIsCold('gpu', 1.5 + IDLE_GAP_MS * 5 + 0.1)).toBe(false); // its result read at once
    expect(w.begin('gpu', 1.5 + IDLE_GAP_MS * 7)).toBe(true); // after an idle gap
    expect(w.copyIsCold('gpu', 1.5 + IDLE_GAP_MS * 7 + 0.1)).toBe(true);
  });
});
