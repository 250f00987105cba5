// The scheduler suite's cost-model chart: the share of right picks over the last `window` calls, call by call,
// through phases whose true crossover moves (each phase start marked), against the 98% target.
import type { LineChart, PlotPoint } from './plot.ts';
import { InvalidArgumentError } from '@tandem/core';

/** One phase of the workload: its name and, per call, whether the pick was the faster backend. */
export interface AccuracyPhase {
  /** Phase name (marker label). */
  readonly name: string;
  /** Per call in order: true when the scheduler picked the faster backend. */
  readonly correct: readonly boolean[];
}

/** Share (%) of right picks in the `window` calls ending at each call from the `window`-th on, every `step` calls. */
export function rollingAccuracy(correct: readonly boolean[], window: number, step = 1): PlotPoint[] {
  if (!Number.isInteger(window) || window < 1) throw new InvalidArgumentError('window', window, 'an integer >= 1');
  if (!Number.isInteger(step) || step < 1) throw new InvalidArgumentError('step', step, 'an integer >= 1');
  const points: PlotPoint[] = [];
  let inWindow = 0;
  for (let i = 0; i < correct.length; i++) {
    if (correct[i] === true) inWindow++;
    if (i >= window && correct[i - window] === true) inWindow--;
    if (i + 1 >= window && (i + 1 - window) % step === 0) points.push({ x: i + 1, y: (100 * inWindow) / window });
  }
  return points;
}

/** The chart: rolling accuracy over all phases' calls in sequence, phase starts marked, the target as a line. */
export function accuracyChart(phases: readonly AccuracyPhase[], window = 100, targetPercent = 98): LineChart {
  const all = phases.flatMap((p) => p.correct);
  const starts: number[] = [];
  let calls = 0;
  for (const phase of phases) {
    starts.push(calls);
    calls += phase.correct.length;
  }
  const points = rollingAccuracy(all, window, Math.max(1, Math.floor(all.length / 400)));
  const lowest = Math.min(targetPercent, ...points.map((p) => p.y));
  return {
    id: 'cost-model-accuracy',
    title: `Cost model: right picks over the last ${window} calls, through crossover shifts (simulated CPU + GPU)`,
    xLabel: 'call',
    yLabel: `% right picks (last ${window} calls)`,
    series: [{ label: `rolling ${window}-call accuracy`, points, dots: false }],
    ceilings: [{ label: `target ${targetPercent}%`, y: targetPercent }],
    markers: phases.map((p, i) => ({ label: p.name, x: starts[i] ?? 0 })),
    yRange: [Math.max(0, Math.floor(lowest / 5) * 5 - 5), 100.5],
    xRange: [0, Math.max(1, all.length)],
  };
}
