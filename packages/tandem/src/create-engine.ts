import { Engine, errorMessage, type CapableBackend, type EngineOptions } from '@tandem/core';
import type { BackendFactory } from './default-backends.ts';
import { forceCpuFromEnv } from './env.ts';

/** createEngine options: EngineOptions with `backends` optional (defaults to what the environment has). */
export interface CreateEngineOptions extends Omit<EngineOptions, 'backends'> {
  /** Backends to use instead of the defaults. */
  readonly backends?: readonly CapableBackend[];
  /** Factories to try instead of this host's defaults (ignored when `backends` is given). */
  readonly factories?: readonly BackendFactory[];
}

/** Factories that failed to build, with the reason (also visible as telemetry notices). */
export interface FactoryFailure {
  /** Backend name. */
  readonly name: string;
  /** What went wrong. */
  readonly reason: string;
}

/**
 * An engine over the backends `defaults` can build here (or `options.backends`), initialised and ready.
 * TANDEM_FORCE_CPU=1 in Node (or `forceCpu: true`) keeps every op on the CPU.
 */
export async function createEngineWith(defaults: readonly BackendFactory[], options: CreateEngineOptions = {}): Promise<Engine> {
  const failures: FactoryFailure[] = [];
  let backends = options.backends;
  if (backends === undefined) {
    const built = await Promise.all(
      (options.factories ?? defaults).map(async (f) => {
        try {
          return await f.create();
        } catch (error) {
          failures.push({ name: f.name, reason: errorMessage(error) });
          return undefined;
        }
      }),
    );
    backends = built.filter((b): b is CapableBackend => b !== undefined);
  }
  const engine = await Engine.create({ ...options, backends, forceCpu: options.forceCpu ?? forceCpuFromEnv() });
  for (const f of failures) engine.telemetry.notice('backend-unavailable', f.name, `could not be loaded: ${f.reason}`);
  return engine;
}
