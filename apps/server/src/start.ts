// startServer: loads the data, builds the app and listens (127.0.0.1 unless told otherwise).
import { existsSync } from 'node:fs';
import type { Engine } from '@tandem/core';
import { createEngine } from 'tandem';
import { buildApp } from './app.ts';
import { createContext } from './context.ts';
import { createMetrics } from './metrics.ts';

/** startServer's options. */
export interface StartOptions {
  /** Interface to bind (default 127.0.0.1: only this machine can connect). */
  readonly host?: string;
  /** Port (0 = any free one; default $PORT or 8080). */
  readonly port?: number;
  /** Wink words to load, most frequent first (default 50,000). */
  readonly words?: number;
  /** A built demo to serve at / (skipped when the folder does not exist). */
  readonly demoDir?: string;
  /** Engine to use (default: createEngine(), Node's backends: ROCm, then WebGPU, then WASM). */
  readonly engine?: Engine;
  /** Progress lines while loading. */
  readonly log?: (line: string) => void;
  /** A request must arrive completely within this, ms (default 10 s). */
  readonly requestTimeoutMs?: number;
}

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** Backends found, with their state ('wasm', 'webgpu (unavailable: ...)'). */
  readonly backends: string[];
  /** Stops accepting, lets requests in flight finish, releases the data and (if it made it) the engine. */
  close(): Promise<void>;
}

/** Loads everything and listens. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const log = options.log ?? (() => undefined);
  const engine = options.engine ?? (await createEngine());
  const ownsEngine = options.engine === undefined;
  const backends = engine.backends().map((b) => (b.available ? `${b.name}${b.device === undefined ? '' : ` (${b.device})`}` : `${b.name} (unavailable: ${b.unavailableReason ?? 'unknown'})`));
  const ctx = await createContext(engine, { words: options.words ?? 50_000, log });
  const metrics = createMetrics(engine);
  const demoDir = options.demoDir !== undefined && existsSync(options.demoDir) ? options.demoDir : undefined;
  const app = await buildApp(ctx, metrics, { ...(demoDir === undefined ? {} : { demoDir }), ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }) });
  const port = options.port ?? Number(process.env['PORT'] ?? 8080);
  const url = await app.listen({ host: options.host ?? '127.0.0.1', port });
  let closing: Promise<void> | undefined;
  return {
    url,
    backends,
    close: () => {
      closing ??= (async () => {
        await app.close(); // stops accepting; waits for requests in flight
        await ctx.close();
        if (ownsEngine) await engine.dispose();
      })();
      return closing;
    },
  };
}
