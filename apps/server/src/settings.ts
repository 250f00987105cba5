// The server's limits and options, with their defaults and the reason for each.
import type { LimiterSettings } from './limiter.ts';

/** Request body limit, bytes (a batch of 256 vectors of 100 numbers fits). */
export const BODY_LIMIT = 256 * 1024;
/** A request must arrive completely within this, ms (slow bodies and headers are cut off with 408). */
export const REQUEST_TIMEOUT_MS = 10_000;
/** A socket with no bytes moving either way for this long is closed, ms (clients that stop reading an answer). */
export const SOCKET_IDLE_MS = 15_000;
/** Most open connections; more are closed as they arrive (each costs a file descriptor and buffers). */
export const MAX_CONNECTIONS = 512;
/** Retry-After of a 503 while the server shuts down, s: about the time a restart takes with the HNSW index cached. */
export const SHUTDOWN_RETRY_AFTER_S = 5;
/** Longest request URL, characters (414 past it). */
export const MAX_URL_CHARS = 2048;
/** Longest path segment, characters: no file name (255 bytes) or route is longer, so past it is a 404. */
export const MAX_SEGMENT_CHARS = 255;

/** The limiters' sizes. */
export interface ServerLimits {
  /** /api/nearest and /api/analogy: one query each, gathered into shared batches. */
  readonly light: LimiterSettings;
  /** /api/batch and /api/spread: up to 256 queries or 117,659 synsets each. */
  readonly heavy: LimiterSettings;
  /** /trace streams (each holds a snapshot of the telemetry ring until sent). */
  readonly trace: LimiterSettings;
}

/**
 * Defaults: a light request is one query of a shared batch, and 64 of them computing at once fill the BatchEngine's
 * batches (16 queries each over 50,000 words, 64 at most) with room for the next; heavy ones run two at a time (one
 * computing while the other is parsed or streamed) with eight waiting (about a second of work at the largest batch:
 * docs/decisions.md, issue 29); two /trace streams with eight waiting.
 */
export const DEFAULT_LIMITS: ServerLimits = {
  light: { concurrency: 64, queue: 256 },
  heavy: { concurrency: 2, queue: 8 },
  trace: { concurrency: 2, queue: 8 },
};

/** Fastify's logger: the lowest level logged and where its JSON lines go. */
export interface LoggerSettings {
  /** 'trace', 'debug', 'info', 'warn', 'error' or 'fatal'. */
  readonly level: string;
  /** Where lines are written (default stdout). */
  readonly stream?: { write(line: string): void };
}

/** App settings (startServer fills them from its options). */
export interface AppOptions {
  /** A built demo to serve at / (apps/demo/dist), when present. */
  readonly demoDir?: string;
  /** A request must arrive completely within this, ms (default REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
  /** Inactivity after which a socket is closed, ms (default SOCKET_IDLE_MS). */
  readonly socketIdleMs?: number;
  /** Most open connections (default MAX_CONNECTIONS). */
  readonly maxConnections?: number;
  /** Limiter sizes (default DEFAULT_LIMITS, per limiter). */
  readonly limits?: Partial<ServerLimits>;
  /** Host names the server answers to on its own port; undefined: any (see host-check.ts). */
  readonly allowedHosts?: readonly string[];
  /** Serve /debug (driver strings, Node version, failure messages); default false. */
  readonly debug?: boolean;
  /** Where internal errors (500) are reported besides the request log; default nowhere. */
  readonly log?: (line: string) => void;
  /** Fastify's request logger (pino): true, or a level and where lines go (default stdout); default off. */
  readonly logger?: boolean | LoggerSettings;
}
