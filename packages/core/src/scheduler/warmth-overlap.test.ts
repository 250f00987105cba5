// Cold and warm calls when calls on one backend overlap (concurrent callers), and at an idle gap of exactly
// IDLE_GAP_MS (which is not yet idle: only a longer gap is).
import { describe, expect, it } from 'vitest';
import { IDLE_GAP_MS, WarmthTracker } from './warmth.ts';

describe('overlapping calls on one backend', () => {
  it('count a call that starts while another still runs as warm, however long ago the last call ended', () => {
    const w = new WarmthTracker();
    expect(w.begin('gpu', 0)).toBe(false);
    w.end('gpu', 1);
    expect(w.begin('gpu', 1.5)).toBe(false); // a long call starts, closely after the first: warm
    expect(w.begin('gpu', 1 + IDLE_GAP_MS * 4)).toBe(false); // the backend is busy with it: not idle
  });

  it('keep the backend busy until the last running call ends', () => {
    const w = new WarmthTracker();
    expect(w.begin('gpu', 0)).toBe(false);
    expect(w.begin('gpu', 0.5)).toBe(false); // two calls running
    w.end('gpu', 1); // one ends, the other still runs
    expect(w.begin('gpu', 1 + IDLE_GAP_MS * 4)).toBe(false);
    expect(w.copyIsCold('gpu', 1 + IDLE_GAP_MS * 4)).toBe(false); // an upload while calls run on a warm backend
  });
});

describe('a gap of exactly IDLE_GAP_MS', () => {
  it('is not idle: the next call is warm', () => {
    const w = new WarmthTracker();
    w.begin('gpu', 0);
    w.end('gpu', 10);
    expect(w.begin('gpu', 10 + IDLE_GAP_MS)).toBe(false);
  });

  it('is not idle: a copy after it is warm', () => {
    const w = new WarmthTracker();
    w.begin('gpu', 0);
    w.end('gpu', 10);
    expect(w.copyIsCold('gpu', 10 + IDLE_GAP_MS)).toBe(false);
    expect(w.copyIsCold('gpu', 10 + IDLE_GAP_MS + 0.5)).toBe(true);
  });
});
