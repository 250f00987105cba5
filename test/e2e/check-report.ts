// Cross-environment agreement: each case the page ran is rebuilt here from the same seed, its inputs must
// have the same bytes (checksums), and the browser's outputs must match Node's @tandem/reference within the
// case's tolerance. Node only.
import { computeReference } from '@tandem/reference';
import { CASES, caseRng } from '../conformance/cases.ts';
import { compareOutputs } from '../conformance/compare.ts';
import { casesFor, decodeTensor, inputChecksums, type BackendRun } from './report.ts';

/** What one backend's run in the browser amounts to, judged in Node. */
export interface RunVerdict {
  /** Backend name. */
  readonly backend: string;
  /** Cases that ran and matched Node's reference. */
  readonly agreed: number;
  /** Of those, cases whose bytes were identical to Node's. */
  readonly identical: number;
  /** Cases the backend refused up front, with its reason. */
  readonly unsupported: readonly string[];
  /** Everything wrong: a case that threw, disagreed, had other inputs, or is missing or unknown. */
  readonly problems: readonly string[];
}

const BY_NAME = new Map(CASES.map((c) => [c.name, c]));

/** Judges one backend's outcomes against Node's reference. */
export function checkRun(run: BackendRun): RunVerdict {
  let agreed = 0;
  let identical = 0;
  const unsupported: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const outcome of run.cases) {
    seen.add(outcome.name);
    const c = BY_NAME.get(outcome.name);
    if (c === undefined || !casesFor(run.backend).includes(c)) {
      problems.push(`${outcome.name}: not a case ${run.backend} runs (casesFor)`);
      continue;
    }
    if (outcome.status !== 'ran') {
      if (outcome.status === 'unsupported') unsupported.push(`${outcome.name}: ${outcome.reason}`);
      else problems.push(`${outcome.name}: threw in the browser: ${outcome.reason}`);
      continue;
    }
    const op = c.build(caseRng(c.name));
    const mine = inputChecksums(op);
    if (mine.join(',') !== outcome.inputChecksums.join(',')) {
      problems.push(
        `${outcome.name}: inputs differ between browser and Node (checksums ${outcome.inputChecksums.join(',')} vs ${mine.join(',')})`,
      );
      continue;
    }
    const want = computeReference(op);
    const got = outcome.outputs.map(decodeTensor);
    const comparison = compareOutputs(op, got, want, c.tolerance);
    if (!comparison.ok) {
      problems.push(`${outcome.name}: ${comparison.message}`);
      continue;
    }
    agreed++;
    if (got.every((t, i) => sameBytes(t.data, want[i]?.data))) identical++;
  }
  for (const c of casesFor(run.backend))
    if (!seen.has(c.name)) problems.push(`${c.name}: missing from the browser's run`);
  return { backend: run.backend, agreed, identical, unsupported, problems };
}

function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);
}
