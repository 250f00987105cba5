// The op-specific options of the engine's op methods (engine.softmax(x, { causal }), ...); each is used together with
// the call options (strategy, label, signal).
import type { RopeMode } from './ops.ts';

/** softmax's options. */
export interface SoftmaxOptions {
  /** Causal mask: row r sees columns c <= r + (cols - rows) (default false). */
  readonly causal?: boolean;
  /** The axis; only the last is supported (-1 or rank - 1), any other is an InvalidArgumentError. */
  readonly axis?: number;
}

/** rmsNorm's options. */
export interface RmsNormOptions<T> {
  /** Per-channel gain [N] (default: none, i.e. 1). */
  readonly weight?: T;
  /** Added to the mean square (default 1e-5). */
  readonly eps?: number;
}

/** rope's options. */
export interface RopeOptions {
  /** Position of the first row (default 0). */
  readonly positionOffset?: number;
  /** Frequency base theta (default 10000, Llama's). */
  readonly base?: number;
  /** Pairing of dimensions (default 'interleaved', ggml's normal mode). */
  readonly mode?: RopeMode;
}

/** attention's options. */
export interface AttentionOptions {
  /** Query i attends only keys at positions <= its own (default false). */
  readonly causal?: boolean;
  /** Logit scale (default 1/sqrt(D)). */
  readonly scale?: number;
}

/** spreadActivation's options (all required: there are no sensible defaults for a graph's dynamics). */
export interface SpreadOptions {
  /** Multiplier per hop, 0 < decay <= 1. */
  readonly decay: number;
  /** Nodes below this activation do not spread. */
  readonly threshold: number;
  /** Hops, >= 1. */
  readonly iterations: number;
}
