// The executor's choice among a plan and its uniform alternatives (placement.ts returns those estimated within 2x):
// measure each a few times (more when two are close), then keep the fastest.
import { describe, expect, it } from 'vitest';
import {
  assignmentKey,
  CandidateRuns,
  chooseCandidate,
  forgetEarlyCandidates,
  pickCandidate,
  recordCandidateRun,
  refreshCandidates,
  type MeasuredCandidates,
  type SettledChoice,
} from './plan-candidates.ts';
import type { PlacementPlan } from './placement.ts';

function plan(
  backends: readonly string[],
  estimatedMs: number,
  alternatives: readonly PlacementPlan[] = [],
): PlacementPlan {
  return {
    nodes: backends.map((backend) => ({ backend, estimatedMs: estimatedMs / backends.length, engineAlone: backend })),
    estimatedMs,
    greedyMs: estimatedMs,
    explainCalls: 0,
    firstStep: 0,
    alternatives,
  };
}

/** Measured candidates from plain lists of run times. */
function measuredOf(entries: ReadonlyArray<readonly [string, readonly number[]]>): MeasuredCandidates {
  return new Map(entries.map(([key, times]) => [key, new CandidateRuns(times)] as const));
}

/** The recorded run times of each candidate, for comparisons. */
function timesOf(measured: MeasuredCandidates): Map<string, readonly number[]> {
  return new Map([...measured].map(([key, runs]) => [key, runs.values] as const));
}

describe('pickCandidate', () => {
  const allGpu = plan(['gpu', 'gpu', 'gpu'], 5);
  const allCpu = plan(['cpu', 'cpu', 'cpu'], 7);
  const mixed = plan(['gpu', 'cpu', 'gpu'], 4, [allGpu, allCpu]);

  it('measures the candidates in turns of two recorded runs after a warm-up run, three runs each', () => {
    const state: { measured: MeasuredCandidates; lastRun: string | undefined } = {
      measured: new Map(),
      lastRun: undefined,
    };
    const order: string[] = [];
    for (let run = 0; run < 14; run++) {
      const picked = pickCandidate(mixed, state.measured, state.lastRun);
      expect(picked.chosenBy).toBe('measuring');
      expect(picked.candidates).toBe(3);
      const key = assignmentKey(picked.plan ?? mixed);
      order.push(
        recordCandidateRun(state, key, key === assignmentKey(mixed) ? 6 : key === assignmentKey(allGpu) ? 5 : 8)
          ? key
          : `${key} (warm-up)`,
      );
    }
    const [m, g, c] = ['gpu,cpu,gpu', 'gpu,gpu,gpu', 'cpu,cpu,cpu'];
    // All at two runs, the CPU plan's turn goes on to its third; the others come back for theirs.
    expect(order).toEqual([
      `${m} (warm-up)`,
      m,
      m,
      `${g} (warm-up)`,
      g,
      g,
      `${c} (warm-up)`,
      c,
      c,
      c,
      `${m} (warm-up)`,
      m,
      `${g} (warm-up)`,
      g,
    ]);
    expect(pickCandidate(mixed, state.measured, state.lastRun)).toEqual({
      plan: allGpu,
      chosenBy: 'measured',
      candidates: 3,
    });
  });

  it('then keeps the candidate with the lowest median of its runs, even against the estimate', () => {
    const measured = measuredOf([
      ['gpu,cpu,gpu', [6.1, 5.9, 30]], // one outlier does not decide
      ['gpu,gpu,gpu', [5.2, 5.0, 5.1]],
      ['cpu,cpu,cpu', [9, 9.5, 8.8]],
    ]);
    expect(pickCandidate(mixed, measured)).toEqual({ plan: allGpu, chosenBy: 'measured', candidates: 3 });
    measured.set('gpu,gpu,gpu', new CandidateRuns([7, 7.2, 6.9]));
    expect(pickCandidate(mixed, measured)).toEqual({ plan: mixed, chosenBy: 'measured', candidates: 3 });
  });

  it('keeps the plan with fewer backend switches unless the other is 3% faster', () => {
    const close = measuredOf([
      ['gpu,cpu,gpu', [5.0, 4.95, 5.05, 5.0, 4.95, 5.05]], // 2 switches, 2% faster than all-GPU: not enough
      ['gpu,gpu,gpu', [5.1, 5.1, 5.1, 5.1, 5.1, 5.1]],
      ['cpu,cpu,cpu', [9, 9, 9]],
    ]);
    expect(pickCandidate(mixed, close)).toEqual({ plan: allGpu, chosenBy: 'measured', candidates: 3 });
    close.set('gpu,cpu,gpu', new CandidateRuns([4.9, 4.9, 4.9, 4.9, 4.9, 4.9])); // 4% faster: taken
    expect(pickCandidate(mixed, close)).toEqual({ plan: mixed, chosenBy: 'measured', candidates: 3 });
  });

  it('a plan with more switches must also beat the other by more than the scatter of their runs', () => {
    const scattered = measuredOf([
      ['gpu,cpu,gpu', [4.2, 4.75, 5.3, 4.75, 4.2, 5.3]], // median 4.75, 5% faster than all-GPU, runs scatter by 11.6%
      ['gpu,gpu,gpu', [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]],
      ['cpu,cpu,cpu', [9, 9, 9]],
    ]);
    expect(pickCandidate(mixed, scattered)).toEqual({ plan: allGpu, chosenBy: 'measured', candidates: 3 });
    scattered.set('gpu,cpu,gpu', new CandidateRuns([3.8, 4.3, 4.8, 4.3, 3.8, 4.8])); // 14% faster, the same scatter (11.6%): taken
    expect(pickCandidate(mixed, scattered)).toEqual({ plan: mixed, chosenBy: 'measured', candidates: 3 });
  });

  it('a close call (within 10%) is measured in the same turns to six runs each before one is kept', () => {
    const state: { measured: MeasuredCandidates; lastRun: string | undefined } = {
      measured: measuredOf([
        ['gpu,cpu,gpu', [5.3, 5.2, 5.4]], // 2 switches, 4% faster than all-GPU on three runs
        ['gpu,gpu,gpu', [5.5, 5.4, 5.6]],
        ['cpu,cpu,cpu', [9, 9, 9]], // not close: never measured again here
      ]),
      lastRun: 'gpu,gpu,gpu',
    };
    const order: string[] = [];
    for (let run = 0; run < 8; run++) {
      const picked = pickCandidate(mixed, state.measured, state.lastRun);
      expect(picked.chosenBy).toBe('measuring');
      const key = assignmentKey(picked.plan ?? mixed);
      order.push(recordCandidateRun(state, key, key === 'gpu,cpu,gpu' ? 5.9 : 5.0) ? key : `${key} (warm-up)`); // the later runs reverse the order
    }
    const [m, g] = ['gpu,cpu,gpu', 'gpu,gpu,gpu'];
    expect(order).toEqual([g, g, `${m} (warm-up)`, m, m, m, `${g} (warm-up)`, g]);
    expect(state.measured.get('cpu,cpu,cpu')?.values).toEqual([9, 9, 9]);
    // Three runs each had kept the split; six each keep the plan that is faster.
    expect(pickCandidate(mixed, state.measured, state.lastRun)).toEqual({
      plan: allGpu,
      chosenBy: 'measured',
      candidates: 3,
    });
  });

  it('a remade plan offering one new assignment has it measured only if estimated 10% below the measured best', () => {
    const measured = measuredOf([
      ['gpu,gpu,gpu', [5.0, 5.1, 4.9]], // the measured best (estimate 5 in the plans below)
      ['cpu,cpu,cpu', [9, 9.5, 8.8]],
    ]);
    const slightlyCheaper = plan(['cpu', 'gpu', 'gpu'], 4.6, [allGpu, allCpu]); // 8% below all-GPU's estimate
    expect(pickCandidate(slightlyCheaper, measured, 'gpu,gpu,gpu', true)).toEqual({
      plan: allGpu,
      chosenBy: 'measured',
      candidates: 2,
    });
    const muchCheaper = plan(['cpu', 'gpu', 'gpu'], 4.4, [allGpu, allCpu]); // 12% below
    expect(pickCandidate(muchCheaper, measured, 'gpu,gpu,gpu', true)).toEqual({
      plan: muchCheaper,
      chosenBy: 'measuring',
      candidates: 3,
    });
    // Two new assignments at once (the first measurements of a structure, or a search that moved far): both measured.
    const twoNew = plan(['cpu', 'gpu', 'gpu'], 4.6, [allGpu, allCpu, plan(['gpu', 'gpu', 'cpu'], 4.7)]);
    expect(pickCandidate(twoNew, measured, 'gpu,gpu,gpu', true)).toEqual({
      plan: twoNew,
      chosenBy: 'measuring',
      candidates: 4,
    });
    // A plan made for a new residency of the inputs: the runs measured under another one do not screen it.
    expect(pickCandidate(slightlyCheaper, measured, 'gpu,gpu,gpu')).toEqual({
      plan: slightlyCheaper,
      chosenBy: 'measuring',
      candidates: 3,
    });
  });

  it('the first remake measures again from scratch the candidates within 2x of the best, and does not screen them as new', () => {
    const measured = measuredOf([
      ['cpu,cpu,cpu', [1.5, 1.5, 1.4, 1.5]], // the best, its runs current
      ['gpu,gpu,gpu', [2.6, 2.6, 2.6]], // measured in the first runs, while everything was warming up
      ['gpu,cpu,gpu', [24, 24, 24]], // far slower: its runs stay
    ]);
    forgetEarlyCandidates(measured, 2);
    expect(timesOf(measured)).toEqual(
      new Map([
        ['cpu,cpu,cpu', [1.5, 1.5, 1.4, 1.5]],
        ['gpu,gpu,gpu', []],
        ['gpu,cpu,gpu', [24, 24, 24]],
      ]),
    );
    // All-GPU's estimate is above all-CPU's: a new assignment would be screened out; a forgotten one is measured.
    const cpuPlan = plan(['cpu', 'cpu', 'cpu'], 4, [allGpu]);
    expect(pickCandidate(cpuPlan, measured, 'cpu,cpu,cpu', true)).toEqual({
      plan: allGpu,
      chosenBy: 'measuring',
      candidates: 2,
    });
  });

  it('the first run after a switch of plans and runs that departed from their plan are not recorded', () => {
    const state: { measured: MeasuredCandidates; lastRun: string | undefined } = {
      measured: new Map(),
      lastRun: undefined,
    };
    expect(recordCandidateRun(state, 'gpu,gpu,gpu', 150)).toBe(false); // first run of this plan: weights copied
    expect(recordCandidateRun(state, 'gpu,gpu,gpu', 5)).toBe(true);
    expect(recordCandidateRun(state, 'cpu,cpu,cpu', 40)).toBe(false); // a switch: the KV cache moves once
    expect(recordCandidateRun(state, 'cpu,cpu,cpu', 9)).toBe(true);
    expect(recordCandidateRun(state, undefined, 3)).toBe(false); // departed from its plan
    expect(recordCandidateRun(state, 'cpu,cpu,cpu', 12)).toBe(false); // after a departure: a warm-up again
    expect(recordCandidateRun(state, 'cpu,cpu,cpu', 9.5)).toBe(true);
    expect(timesOf(state.measured)).toEqual(
      new Map([
        ['gpu,gpu,gpu', [5]],
        ['cpu,cpu,cpu', [9, 9.5]],
      ]),
    );
  });

  it('a plan without alternatives is simply used', () => {
    expect(pickCandidate(plan(['gpu'], 5), new Map())).toEqual({
      plan: plan(['gpu'], 5),
      chosenBy: 'estimate',
      candidates: 1,
    });
    expect(pickCandidate(undefined, new Map())).toEqual({ plan: undefined, chosenBy: 'estimate', candidates: 0 });
  });

  it('a refresh gives near ties one more run each and leaves clearly slower candidates measured', () => {
    const measured = measuredOf([
      ['gpu,cpu,gpu', [5.0, 5.1, 4.9, 5.0, 5.2]], // the chosen one: keeps enough runs to stay measured
      ['gpu,gpu,gpu', [5.5, 5.6, 5.4]], // within 1.1x of the best
      ['cpu,cpu,cpu', [9, 9.5, 8.8]], // clearly slower
    ]);
    refreshCandidates(measured, 1.1);
    expect(pickCandidate(mixed, measured)).toEqual({ plan: allGpu, chosenBy: 'measuring', candidates: 3 });
    expect(measured.get('cpu,cpu,cpu')?.values).toEqual([9, 9.5, 8.8]);
    expect(measured.get('gpu,cpu,gpu')?.values).toEqual([5.1, 4.9, 5.0, 5.2]);
    refreshCandidates(measured, Infinity); // a plan remake: every candidate measured again
    expect(measured.get('cpu,cpu,cpu')?.values).toEqual([9.5, 8.8]);
  });
});

describe('CandidateRuns', () => {
  it('keeps its median and scatter current through every change', () => {
    const runs = new CandidateRuns([5, 1, 3]);
    expect([runs.count, runs.median, runs.spread]).toEqual([3, 3, 2 / 3]);
    runs.push(4, 3); // 5 dropped: 1, 3, 4
    expect([runs.values, runs.median, runs.spread]).toEqual([[1, 3, 4], 3, 1 / 3]);
    runs.dropOldest(); // 3, 4: the upper median
    expect([runs.median, runs.spread]).toEqual([4, 1 / 4]);
    runs.clear();
    expect([runs.count, runs.median, runs.spread]).toEqual([0, Infinity, 0]);
  });
});

describe('chooseCandidate', () => {
  const allCpu = plan(['cpu', 'cpu', 'cpu'], 7);
  const searched = plan(['gpu', 'gpu', 'gpu'], 5, [allCpu]);

  it('reuses a final choice for the same plan for four runs, then compares the candidates again', () => {
    const state: { measured: MeasuredCandidates; lastRun: string | undefined; settled: SettledChoice | undefined } = {
      measured: measuredOf([
        ['gpu,gpu,gpu', [5, 5, 5]],
        ['cpu,cpu,cpu', [9, 9, 9]],
      ]),
      lastRun: 'gpu,gpu,gpu',
      settled: undefined,
    };
    expect(chooseCandidate(state, searched, false)).toEqual({ plan: searched, chosenBy: 'measured', candidates: 2 });
    state.measured.set('cpu,cpu,cpu', new CandidateRuns([2, 2, 2])); // the CPU got faster
    const next = [1, 2, 3, 4].map(() => chooseCandidate(state, searched, false).plan);
    expect(next).toEqual([searched, searched, searched, allCpu]); // three runs on the settled choice, then the new one
    // Another plan object (a remake) or another screening is compared at once.
    state.measured.set('cpu,cpu,cpu', new CandidateRuns([9, 9, 9]));
    const remade = plan(['gpu', 'gpu', 'gpu'], 5, [allCpu]);
    expect(chooseCandidate(state, remade, false).plan).toBe(remade);
    expect(chooseCandidate(state, remade, true).chosenBy).toBe('measured');
  });

  it('does not reuse a choice made while candidates are still being measured', () => {
    const state: { measured: MeasuredCandidates; lastRun: string | undefined; settled: SettledChoice | undefined } = {
      measured: measuredOf([['gpu,gpu,gpu', [5, 5, 5]]]),
      lastRun: 'gpu,gpu,gpu',
      settled: undefined,
    };
    expect(chooseCandidate(state, searched, false)).toEqual({ plan: allCpu, chosenBy: 'measuring', candidates: 2 });
    expect(state.settled).toBeUndefined();
    state.measured.set('cpu,cpu,cpu', new CandidateRuns([9, 9, 9]));
    expect(chooseCandidate(state, searched, false)).toEqual({ plan: searched, chosenBy: 'measured', candidates: 2 });
  });
});
