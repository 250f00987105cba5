// CostModel.profileCheckDue when a backend's first run comes before its check is due: a warm-up in the background
// (reason `warming`) or from a profile at start must not start the check early (more cases in cost-model.test.ts).
import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';

describe('CostModel.profileCheckDue after an early warm-up', () => {
  it('a warm-up run before the check is due does not make it due; the check comes `every` decisions after it', () => {
    const model = new CostModel();
    model.seed([{ opKey: 'add|f32', backend: 'gpu', sizes: [[20, 0, 3]] }]);
    for (let i = 0; i < 3; i++) model.tick('add|f32');
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1); // a warm-up at decision 3, before the check
    model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(false);
    for (let i = 0; i < 48; i++) model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(false);
    model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true); // 50 decisions after that run
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1, true); // the check's run was cold: skipped
    model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true); // the check goes on at once
  });

  it('with no warm-up runs (warmupSamples 0), a cold (skipped) check run makes the check due again at once', () => {
    const model = new CostModel({ warmupSamples: 0 });
    model.seed([{ opKey: 'add|f32', backend: 'gpu', sizes: [[20, 0, 3]] }]);
    for (let i = 0; i < 50; i++) model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1, true);
    model.tick('add|f32');
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
  });
});
