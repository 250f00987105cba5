// startServer: loads the data, builds the app and listens (127.0.0.1 unless told otherwise).
import { existsSync, readFileSync } from 'node:fs';
import type { Engine } from '@tandem/core';
import { createEngine } from 'tandem';
import { buildApp } from './app.ts';
import { createContext } from './context.ts';
import { allowedHostsFor } from './host-check.ts';
import { createMetrics } from './metrics.ts';
import type { AppOptions, ServerLimits } from './settings.ts';

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
  /** Inactivity after which a socket is closed, ms (default 15 s). */
  readonly socketIdleMs?: number;
  /** Most open connections (default 512). */
  readonly maxConnections?: number;
  /** Limiter sizes, per limiter (default DEFAULT_LIMITS in settings.ts). */
  readonly limits?: Partial<ServerLimits>;
  /** Host names answered to on the port (default on loopback: localhost, 127.0.0.1, [::1]; '*': any). */
  readonly allowedHosts?: readonly string[];
  /** Serve /debug with driver strings and the Node version (default false). */
  readonly debug?: boolean;
  /** Fastify's request logger (default off; the command line turns it on at 'info'). */
  readonly logger?: AppOptions['logger'];
  /**
   * A profile to start from (JSON from engine.profile.export(), e.g. calibrated on another machine of this kind),
   * imported before the data loads; one of other devices or versions is ignored, and the log says why.
   */
  readonly profileFile?: string;
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
  const profile = options.profileFile === undefined ? undefined : readProfile(options.profileFile);
  const engine = options.engine ?? (await createEngine());
  const ownsEngine = options.engine === undefined;
  if (profile !== undefined) {
    const result = engine.profile.import(profile.text, profile.file);
    log(
      result.used
        ? `profile ${profile.file}: ${result.seeded} op/backend series seeded`
        : `profile ${profile.file} ignored: ${result.reason ?? 'unknown'}`,
    );
  }
  const backends = engine
    .backends()
    .map((b) =>
      b.available
        ? `${b.name}${b.device === undefined ? '' : ` (${b.device})`}`
        : `${b.name} (unavailable: ${b.unavailableReason ?? 'unknown'})`,
    );
  const ctx = await createContext(engine, { words: options.words ?? 50_000, log });
  const metrics = createMetrics(engine);
  const demoDir = options.demoDir !== undefined && existsSync(options.demoDir) ? options.demoDir : undefined;
  const host = options.host ?? '127.0.0.1';
  const allowedHosts = allowedHostsFor(host, options.allowedHosts);
  const appOptions: AppOptions = {
    ...(demoDir === undefined ? {} : { demoDir }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.socketIdleMs === undefined ? {} : { socketIdleMs: options.socketIdleMs }),
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    debug: options.debug === true,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    log,
  };
  const app = await buildApp(ctx, metrics, appOptions);
  const port = options.port ?? Number(process.env['PORT'] ?? 8080);
  const url = await app.listen({ host, port });
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

/** The text of the profile file; throws, naming the file, when it cannot be read (before any engine is made). */
function readProfile(file: string): { file: string; text: string } {
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (error) {
    throw new Error(`profile ${file}: cannot read it (${error instanceof Error ? error.message : String(error)})`);
  }
}
