import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { accuracyChart, rollingAccuracy } from './scheduler-accuracy.ts';

describe('rollingAccuracy', () => {
  it('gives the share of right picks in each full window', () => {
    const correct = [true, true, false, true, false, false];
    expect(rollingAccuracy(correct, 2)).toEqual([
      { x: 2, y: 100 },
      { x: 3, y: 50 },
      { x: 4, y: 50 },
      { x: 5, y: 50 },
      { x: 6, y: 0 },
    ]);
    expect(rollingAccuracy(correct, 4, 2)).toEqual([
      { x: 4, y: 75 },
      { x: 6, y: 25 },
    ]);
    expect(rollingAccuracy([true], 2)).toEqual([]);
  });

  it('rejects a window or step that is not a positive integer', () => {
    expect(() => rollingAccuracy([true], 0)).toThrow(InvalidArgumentError);
    expect(() => rollingAccuracy([true], 1, 1.5)).toThrow(InvalidArgumentError);
  });
});

describe('accuracyChart', () => {
  it('runs the phases in sequence, marks where each starts and draws the target', () => {
    const phases = [
      { name: 'steady', correct: Array.from({ length: 300 }, () => true) },
      { name: 'shift', correct: Array.from({ length: 300 }, (_, i) => i >= 50) },
    ];
    const chart = accuracyChart(phases, 100);
    expect(chart.markers).toEqual([
      { label: 'steady', x: 0 },
      { label: 'shift', x: 300 },
    ]);
    expect(chart.ceilings).toEqual([{ label: 'target 98%', y: 98 }]);
    const points = chart.series[0]?.points ?? [];
    expect(points[0]).toEqual({ x: 100, y: 100 });
    expect(Math.min(...points.map((p) => p.y))).toBe(50); // calls 251..350: 50 right, 50 wrong
    expect(points.at(-1)).toEqual({ x: 600, y: 100 });
    expect(chart.yRange?.[0]).toBe(45);
  });
});
