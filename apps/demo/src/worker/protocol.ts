// The messages between the page and its engine worker. The engine, the data and every computation live in the
// worker (engine-worker.ts), so WASM kernels, SwiftShader's work, data decoding and layout never hold the page's main
// thread; the page sends requests (each answered once, by id) and receives events (telemetry, notices, progress).
import type { NoticeEvent, OpEvent } from '@tandem/core';
import type { GraphLink, GraphNode } from '../graph/neighbourhood.ts';
import type { NearestComparison } from '../search/nearest.ts';
import type { SweepOp, SweepPoint } from '../panels/sweep-measure.ts';
import type { WorkloadStats } from '../panels/workload.ts';
import type { ShownError } from '../sentences.ts';

/** The strategies the page offers. */
export type StrategyName = 'auto' | 'gpu-preferred' | 'cpu-preferred';

/** A backend as the page's badges show it. */
export interface BackendView {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: 'cpu' | 'gpu';
  /** Whether it started. */
  readonly available: boolean;
  /** Device name (the adapter for WebGPU). */
  readonly device: string | undefined;
  /** Whether the GPU is emulated on the CPU (SwiftShader). */
  readonly software: boolean;
  /** healthy, degraded, unhealthy, recovering or unavailable. */
  readonly state: string;
  /** Why it is unavailable or unhealthy, when it is. */
  readonly why: string | undefined;
}

/** The spreading-activation answer, ready to draw. */
export interface SpreadAnswer {
  /** The drawn synsets (the most activated, the source first). */
  readonly nodes: readonly GraphNode[];
  /** Edges between them. */
  readonly links: readonly GraphLink[];
  /** A short label per node (its first lemma). */
  readonly labels: readonly string[];
  /** A full description per node (id and lemmas). */
  readonly titles: readonly string[];
  /** Synsets with any activation. */
  readonly reached: number;
  /** Time of the spreadActivation call, ms. */
  readonly ms: number;
  /** Where each engine call ran and why. */
  readonly ranOn: readonly string[];
}

/** What the worker answers to each request, by kind. */
export interface Replies {
  start: {
    readonly backends: readonly BackendView[];
    readonly webgpu: { readonly available: boolean; readonly why: string };
    readonly isolated: boolean;
    readonly words: number;
    readonly synsets: number;
    readonly edges: number;
  };
  loadWords: { readonly words: number };
  loadWordNet: { readonly synsets: number; readonly edges: number };
  search: NearestComparison;
  synsets: readonly { readonly node: number; readonly text: string }[];
  spread: SpreadAnswer;
  workload: { readonly running: boolean };
  loseGpu: { readonly destroyed: boolean; readonly note: string };
  sweep: { readonly points: readonly SweepPoint[]; readonly cancelled: boolean };
  sweepDrawn: { readonly waiting: boolean };
  cancelSweep: { readonly cancelling: boolean };
  trace: string;
}

/** What the page asks, by kind. */
export interface Requests {
  start: { readonly baseUrl: string; readonly webgpu: boolean };
  loadWords: Record<string, never>;
  loadWordNet: Record<string, never>;
  search: { readonly query: string; readonly k: number; readonly ef: number; readonly strategy: StrategyName };
  synsets: { readonly word: string };
  spread: {
    readonly source: number;
    readonly decay: number;
    readonly threshold: number;
    readonly maxHops: number;
    readonly limit: number;
    readonly strategy: StrategyName;
  };
  workload: { readonly run: boolean };
  loseGpu: Record<string, never>;
  sweep: { readonly op: SweepOp };
  /** The page has drawn the sweep's last point: the sweep measures the next one. */
  sweepDrawn: Record<string, never>;
  cancelSweep: Record<string, never>;
  trace: Record<string, never>;
}

/** A request on the wire. */
export type RequestMessage = {
  [K in keyof Requests]: { readonly id: number; readonly kind: K; readonly args: Requests[K] };
}[keyof Requests];

/** An op attempt as the page shows it: the event, and its reason in the page's words. */
export type ShownOp = OpEvent & { readonly why: string };

/** Events the worker sends unasked. */
export type WorkerEvent =
  | { readonly event: 'ops'; readonly ops: readonly ShownOp[] }
  | { readonly event: 'notice'; readonly notice: NoticeEvent; readonly backends: readonly BackendView[] }
  | { readonly event: 'progress'; readonly loaded: number; readonly total: number; readonly file: string }
  | { readonly event: 'sweep-point'; readonly point: SweepPoint; readonly done: number; readonly total: number }
  | { readonly event: 'workload'; readonly stats: WorkloadStats; readonly running: boolean }
  | { readonly event: 'loss'; readonly state: 'waiting' | 'lost' | 'done'; readonly note: string };

/** A successful reply to a request of kind K. */
export interface ReplyOf<K extends keyof Replies> {
  /** The request's id. */
  readonly id: number;
  /** The request's kind. */
  readonly kind: K;
  /** Success. */
  readonly ok: true;
  /** The answer. */
  readonly value: Replies[K];
}

/** A reply on the wire: an answer of its kind, or the error as the page shows it. */
export type ReplyMessage =
  | { [K in keyof Replies]: ReplyOf<K> }[keyof Replies]
  | { readonly id: number; readonly kind: keyof Replies; readonly ok: false; readonly error: ShownError };

/** Anything the worker posts. */
export type WorkerMessage = WorkerEvent | ReplyMessage;
