// Per-run report: one record per node (backend, reason, time, bytes moved) from the engine's telemetry, and totals.
import {
  chromeTraceOf,
  describeReason,
  formatMs,
  type ChromeTrace,
  type Engine,
  type OpEvent,
  type OpKind,
  type SelectionReason,
} from '@tandem/core';
import type { PlacementSummary } from './node-decision.ts';
import type { ReplayState } from './replay.ts';

/** What happened to one node in one run. */
export interface NodeRecord {
  /** Node name (its label in telemetry and the Chrome trace). */
  readonly name: string;
  /** Op id. */
  readonly op: OpKind;
  /** Backend that produced the result. */
  readonly backend: string;
  /** Kind of the scheduler's reason for that backend, or 'graph-plan' when the graph's placement overrode it. */
  readonly reasonKind: SelectionReason['kind'] | 'graph-plan';
  /** The reason, readable (costs per backend for the cost model). */
  readonly reason: string;
  /** Backends tried (1 + fallbacks). */
  readonly attempts: number;
  /** Wall time of the node seen by the executor, ms: decision, transfers and kernel. */
  readonly ms: number;
  /** Time the backend reported for the kernel, ms (undefined when unknown). */
  readonly kernelMs: number | undefined;
  /** Bytes moved between the host and backends to bind this node's inputs. */
  readonly bytesMoved: number;
  /** Scheduler's estimate for the chosen backend, ms. */
  readonly estimatedMs: number;
  /** The engine call that ran it (its events' callId in telemetry; -1 when unknown). */
  readonly callId: number;
}

/** Totals of one backend in one run. */
export interface BackendTotals {
  /** Nodes it ran. */
  readonly nodes: number;
  /** Their wall time, ms. */
  readonly ms: number;
  /** Bytes moved to bind their inputs. */
  readonly bytesMoved: number;
}

/** A small summary of one run (or of several runs combined, such as a decoder step). */
export interface RunReport {
  /** Graph name. */
  readonly graph: string;
  /** Strategy the run used. */
  readonly strategy: string;
  /** Wall time of the run, ms. */
  readonly totalMs: number;
  /** Wall time spent outside nodes (input upload, host steps such as the KV-cache append), ms. */
  readonly hostMs: number;
  /** Per node, in execution order. */
  readonly nodes: readonly NodeRecord[];
  /** Per backend. */
  readonly byBackend: Readonly<Record<string, BackendTotals>>;
  /** Bytes moved in total (node inputs plus host steps). */
  readonly bytesMoved: number;
  /** Nodes that moved bytes (each is at least one transfer). */
  readonly nodesWithTransfers: number;
  /** Consecutive nodes placed on different backends. */
  readonly backendSwitches: number;
  /** Most executor-owned tensors (intermediates and inputs it uploaded) alive at once. */
  readonly peakLiveTensors: number;
  /** Bytes of those at the peak. */
  readonly peakLiveBytes: number;
  /** Executor-owned tensors still alive after the run, outputs excluded (0 unless something leaked). */
  readonly leakedTensors: number;
  /** The 'auto' run's placement plan (undefined under other strategies). */
  readonly placement: PlacementSummary | undefined;
  /** Whether the run replayed a recorded plan, recorded one, or went node by node, and why (replay.ts). */
  readonly replay?: ReplayState | undefined;
}

/** The attempts of the engine's latest call, oldest first; empty when its label is not `label` (another caller ran in between). */
export function latestCallEvents(engine: Engine, label: string): OpEvent[] {
  const call = engine.telemetry.latestCallEvents();
  return call.at(-1)?.label === label ? call : [];
}

/** A node's record from its call's telemetry events and the executor's wall time; `planReason`: the graph plan's reason, when the plan placed the node itself (it replaces the engine's). */
export function nodeRecord(
  name: string,
  op: OpKind,
  events: readonly OpEvent[],
  ms: number,
  planReason?: string,
): NodeRecord {
  const final = events[events.length - 1];
  return {
    name,
    op,
    backend: final?.backend ?? 'unknown',
    reasonKind: planReason !== undefined ? 'graph-plan' : (final?.reason.kind ?? 'cpu-fallback'),
    reason:
      planReason ??
      (final === undefined
        ? 'no telemetry event (the engine was used concurrently)'
        : describeReason(final.reason, final.costsMs)),
    attempts: events.length,
    ms,
    kernelMs: final?.kernelMs,
    bytesMoved: events.reduce((s, e) => s + e.bytesMoved, 0),
    estimatedMs: final?.estimatedMs ?? 0,
    callId: final?.callId ?? -1,
  };
}

/** Per-backend totals, transfer count and backend switches of a list of node records. */
export function totalsOf(
  nodes: readonly NodeRecord[],
): Pick<RunReport, 'byBackend' | 'nodesWithTransfers' | 'backendSwitches'> & { nodeBytes: number } {
  const byBackend: Record<string, BackendTotals> = {};
  let switches = 0;
  nodes.forEach((n, i) => {
    const t = byBackend[n.backend] ?? { nodes: 0, ms: 0, bytesMoved: 0 };
    byBackend[n.backend] = { nodes: t.nodes + 1, ms: t.ms + n.ms, bytesMoved: t.bytesMoved + n.bytesMoved };
    const previous = nodes[i - 1];
    if (previous !== undefined && previous.backend !== n.backend) switches++;
  });
  return {
    byBackend,
    nodesWithTransfers: nodes.filter((n) => n.bytesMoved > 0).length,
    backendSwitches: switches,
    nodeBytes: nodes.reduce((s, n) => s + n.bytesMoved, 0),
  };
}

/** What one run's report is made from: its node records and what the executor saw. */
export interface RunFacts {
  /** Graph name. */
  readonly graph: string;
  /** Strategy name. */
  readonly strategy: string;
  /** Wall time of the run, ms. */
  readonly totalMs: number;
  /** Per node, in execution order. */
  readonly nodes: readonly NodeRecord[];
  /** The executor's live tensors' peak. */
  readonly live: { readonly peakCount: number; readonly peakBytes: number };
  /** Executor-owned tensors left alive, outputs excluded. */
  readonly leakedTensors: number;
  /** The placement plan, under 'auto'. */
  readonly placement: PlacementSummary | undefined;
  /** What replay did. */
  readonly replay: ReplayState | undefined;
}

/** One run's report, with its totals. */
export function runReportOf(run: RunFacts): RunReport {
  const totals = totalsOf(run.nodes);
  return {
    graph: run.graph,
    strategy: run.strategy,
    totalMs: run.totalMs,
    hostMs: Math.max(0, run.totalMs - run.nodes.reduce((s, r) => s + r.ms, 0)),
    nodes: run.nodes,
    byBackend: totals.byBackend,
    bytesMoved: totals.nodeBytes,
    nodesWithTransfers: totals.nodesWithTransfers,
    backendSwitches: totals.backendSwitches,
    peakLiveTensors: run.live.peakCount,
    peakLiveBytes: run.live.peakBytes,
    leakedTensors: run.leakedTensors,
    placement: run.placement,
    replay: run.replay,
  };
}

/** Several runs as one report (e.g. the step graphs of several decoder layers), with what happened between them in `extra`. */
export function combineReports(
  graph: string,
  reports: readonly RunReport[],
  extra: { hostMs: number; bytesMoved: number; totalMs: number },
): RunReport {
  const nodes = reports.flatMap((r) => r.nodes);
  const totals = totalsOf(nodes);
  return {
    graph,
    strategy: [...new Set(reports.map((r) => r.strategy))].join(', '),
    totalMs: extra.totalMs,
    hostMs: reports.reduce((s, r) => s + r.hostMs, extra.hostMs),
    nodes,
    byBackend: totals.byBackend,
    bytesMoved: reports.reduce((s, r) => s + r.bytesMoved, extra.bytesMoved),
    nodesWithTransfers: totals.nodesWithTransfers,
    backendSwitches: totals.backendSwitches,
    peakLiveTensors: Math.max(0, ...reports.map((r) => r.peakLiveTensors)),
    peakLiveBytes: Math.max(0, ...reports.map((r) => r.peakLiveBytes)),
    leakedTensors: reports.reduce((s, r) => s + r.leakedTensors, 0),
    placement: combinePlacements(reports.map((r) => r.placement)),
    replay: reports.every((r) => r.replay?.state === 'replayed')
      ? { state: 'replayed' }
      : reports.find((r) => r.replay?.state !== 'replayed')?.replay,
  };
}

/** What formatReport prints for a node whose backend and reason are those of the node above it. */
export const SAME_REASON = '"';

/**
 * A fixed-width table of a report, for logs. A segment (consecutive nodes on one backend for one reason, as a
 * graph plan places them) prints its reason once, on its first node; the nodes after it show SAME_REASON.
 */
export function formatReport(report: RunReport): string {
  const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length));
  const lines = [
    `${report.graph} [${report.strategy}]: ${formatMs(report.totalMs)}, ${report.bytesMoved} bytes moved, ${report.backendSwitches} backend switches, peak ${report.peakLiveTensors} live tensors`,
    `${pad('node', 30) + pad('backend', 12) + pad('ms', 11) + pad('bytes', 12)}reason`,
  ];
  let above: NodeRecord | undefined;
  for (const n of report.nodes) {
    const same = above !== undefined && above.backend === n.backend && above.reason === n.reason;
    lines.push(
      pad(n.name, 30) +
        pad(n.backend, 12) +
        pad(formatMs(n.ms), 11) +
        pad(String(n.bytesMoved), 12) +
        (same ? SAME_REASON : n.reason),
    );
    above = n;
  }
  return lines.join('\n');
}

/** The placements of several runs as one (sums; undefined when none of them planned). */
function combinePlacements(placements: ReadonlyArray<PlacementSummary | undefined>): PlacementSummary | undefined {
  const present = placements.filter((p): p is PlacementSummary => p !== undefined);
  if (present.length === 0) return undefined;
  return {
    estimatedMs: present.reduce((s, p) => s + p.estimatedMs, 0),
    greedyMs: present.reduce((s, p) => s + p.greedyMs, 0),
    planningMs: present.reduce((s, p) => s + p.planningMs, 0),
    choosingMs: present.reduce((s, p) => s + p.choosingMs, 0),
    explainCalls: present.reduce((s, p) => s + p.explainCalls, 0),
    reused: present.every((p) => p.reused),
    overrides: present.reduce((s, p) => s + p.overrides, 0),
    chosenBy: present.some((p) => p.chosenBy === 'measuring') ? 'measuring' : (present.at(-1)?.chosenBy ?? 'estimate'),
    candidates: Math.max(...present.map((p) => p.candidates)),
  };
}

/**
 * The engine's Chrome trace (one track per backend, one slice per node labelled with its name) with the graph's
 * reasons written over the engine's for the nodes a plan placed itself: there the engine only saw `{ only }`.
 */
export function graphChromeTrace(engine: Engine, reports: readonly RunReport[]): ChromeTrace {
  const reasons = new Map<number, string>();
  for (const report of reports)
    for (const n of report.nodes) if (n.reasonKind === 'graph-plan') reasons.set(n.callId, n.reason);
  const trace = chromeTraceOf(engine.telemetry.opEvents(), engine.telemetry.noticeEvents(), engine.telemetry.originMs);
  return {
    displayTimeUnit: trace.displayTimeUnit,
    traceEvents: trace.traceEvents.map((e) => {
      const reason = e.ph === 'X' ? reasons.get(Number(e.args['call'])) : undefined;
      return reason === undefined ? e : { ...e, args: { ...e.args, reason } };
    }),
  };
}
