// createEngine's shared part: build each default backend the host can have, register the ones that could not be
// built as unavailable (with the reason and how to enable them), then start the engine.
import { Engine, errorMessage, FORCE_CPU_UNSTARTED, type CapableBackend, type EngineOptions } from '@tandem/core';
import type { BackendFactory, FactoryOptions } from './default-backends.ts';
import { forceCpuFromEnv } from './env.ts';
import { UnavailableBackend } from './unavailable-backend.ts';

/** createEngine options: EngineOptions with `backends` optional (defaults to what the environment has). */
export interface CreateEngineOptions extends Omit<EngineOptions, 'backends'>, FactoryOptions {
  /** Backends to use instead of the defaults. */
  readonly backends?: readonly CapableBackend[];
  /** Factories to try instead of this host's defaults (ignored when `backends` is given). */
  readonly factories?: readonly BackendFactory[];
}

/** Why forceCpu leaves a GPU backend unstarted (its factory is not called, and a GPU backend handed in is not initialised). */
export const FORCE_CPU_REASON = FORCE_CPU_UNSTARTED;

/**
 * An engine over the backends `defaults` can build here (or `options.backends`), initialised and ready.
 * TANDEM_FORCE_CPU=1 in Node (or `forceCpu: true`) keeps every op on the CPU and never calls a GPU factory.
 */
export async function createEngineWith(
  defaults: readonly BackendFactory[],
  options: CreateEngineOptions = {},
): Promise<Engine> {
  const forceCpu = options.forceCpu ?? forceCpuFromEnv();
  const { factories, wasm, backends: given, ...engineOptions } = options;
  const factoryOptions: FactoryOptions = wasm === undefined ? {} : { wasm };
  const backends = given ?? (await Promise.all((factories ?? defaults).map((f) => build(f, factoryOptions, forceCpu))));
  return Engine.create({ ...engineOptions, backends, forceCpu });
}

async function build(factory: BackendFactory, options: FactoryOptions, forceCpu: boolean): Promise<CapableBackend> {
  if (forceCpu && factory.kind === 'gpu') return new UnavailableBackend(factory.name, factory.kind, FORCE_CPU_REASON);
  try {
    return await factory.create(options);
  } catch (error) {
    return new UnavailableBackend(factory.name, factory.kind, errorMessage(error));
  }
}
