// createEngine's shared part: build each default backend the host can have, register the ones that could not be
// built as unavailable (with the reason and how to enable them), then start the engine.
import {
  Engine,
  errorMessage,
  FORCE_CPU_UNSTARTED,
  type CapableBackend,
  type EngineOptions,
  type ProfileStore,
} from '@tandem/core';
import type { BackendFactory, FactoryOptions } from './default-backends.ts';
import { forceCpuFromEnv, readEnv } from './env.ts';
import { UnavailableBackend } from './unavailable-backend.ts';

/** createEngine options: EngineOptions with `backends` optional (defaults to what the environment has). */
export interface CreateEngineOptions extends Omit<EngineOptions, 'backends' | 'profile'>, FactoryOptions {
  /** Backends to use instead of the defaults. */
  readonly backends?: readonly CapableBackend[];
  /** Factories to try instead of this host's defaults (ignored when `backends` is given). */
  readonly factories?: readonly BackendFactory[];
  /**
   * Where the engine's profile (what it learned of its devices) is kept between engines: 'auto' (default) a file
   * under the user's cache folder in Node (TANDEM_PROFILE=off turns it off, TANDEM_PROFILE_DIR moves it), IndexedDB
   * in a browser or worker; false for none; or a ProfileStore of your own.
   */
  readonly profile?: 'auto' | false | ProfileStore;
}

/** Why forceCpu leaves a GPU backend unstarted (its factory is not called, and a GPU backend handed in is not initialised). */
export const FORCE_CPU_REASON = FORCE_CPU_UNSTARTED;

/**
 * An engine over the backends `defaults` can build here (or `options.backends`), initialised and ready.
 * TANDEM_FORCE_CPU=1 in Node (or `forceCpu: true`) keeps every op on the CPU and never calls a GPU factory.
 */
export async function createEngineWith(
  defaults: readonly BackendFactory[],
  autoProfileStore: () => ProfileStore | undefined,
  options: CreateEngineOptions = {},
): Promise<Engine> {
  const forceCpu = options.forceCpu ?? forceCpuFromEnv();
  const { factories, wasm, backends: given, profile: setting = 'auto', ...engineOptions } = options;
  const factoryOptions: FactoryOptions = wasm === undefined ? {} : { wasm };
  const backends = given ?? (await Promise.all((factories ?? defaults).map((f) => build(f, factoryOptions, forceCpu))));
  const profile = setting === 'auto' ? autoStore(autoProfileStore) : setting === false ? undefined : setting;
  return Engine.create({ ...engineOptions, backends, forceCpu, ...(profile === undefined ? {} : { profile }) });
}

/** The host's profile store, unless TANDEM_PROFILE=off (or 0, false, no) in Node. */
function autoStore(hostStore: () => ProfileStore | undefined): ProfileStore | undefined {
  const setting = readEnv('TANDEM_PROFILE')?.toLowerCase();
  return setting === 'off' || setting === '0' || setting === 'false' || setting === 'no' ? undefined : hostStore();
}

async function build(factory: BackendFactory, options: FactoryOptions, forceCpu: boolean): Promise<CapableBackend> {
  if (forceCpu && factory.kind === 'gpu') return new UnavailableBackend(factory.name, factory.kind, FORCE_CPU_REASON);
  try {
    return await factory.create(options);
  } catch (error) {
    return new UnavailableBackend(factory.name, factory.kind, errorMessage(error));
  }
}
