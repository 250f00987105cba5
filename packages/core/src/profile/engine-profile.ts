// An engine's profile: export and import of what it learned (profile-data.ts), and, with a store, loading it at
// start and saving it as the engine learns and on dispose. A profile only seeds: measurements correct it, the first
// run of each op on each backend is still a warm-up, and a profile of other devices, another engine version or
// another format, or one that is corrupt, is ignored with a notice. A store that fails (full, read-only, refused)
// leaves the engine learning in memory, with a notice.
import type { WarmUpExample } from '../engine-warmup.ts';
import { errorMessage } from '../errors.ts';
import type { Residency } from '../residency.ts';
import type { CostModel } from '../scheduler/cost-model.ts';
import type { ReadBackRates } from '../scheduler/read-back.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { cancelTimer, startBackgroundTimer } from '../timers.ts';
import {
  checkProfile,
  PROFILE_FORMAT,
  parseProfile,
  profileKey,
  type CopyProfile,
  type ProfileData,
  type ProfileSection,
  type ProfileStore,
} from './profile-data.ts';

/** What import() did with a profile. */
export interface ProfileImport {
  /** Whether it seeded the engine. */
  readonly used: boolean;
  /** Why it was ignored, when it was. */
  readonly reason: string | undefined;
  /** (op, dtype, backend) series seeded (a series already measured here keeps its own measurements). */
  readonly seeded: number;
}

/** What an EngineProfile works with. */
export interface EngineProfileOptions {
  /** The cost model it saves and seeds. */
  readonly costModel: CostModel;
  /** Where the copy times are learned. */
  readonly residency: Residency;
  /** How often each op's outputs are read back. */
  readonly readBack: ReadBackRates;
  /** The engine's backends by name (a profile's entries for other backends are left out). */
  readonly backendNames: ReadonlySet<string>;
  /** Where loads, ignored profiles and store failures are noticed. */
  readonly telemetry: Telemetry;
  /** The identity of the engine's devices and version (profileFingerprint), once its backends are initialised. */
  readonly fingerprint: () => string;
  /** Where profiles are kept; undefined: export/import only. */
  readonly store: ProfileStore | undefined;
  /** How long after it learns something the engine saves it (one save per interval however much it learns), ms. */
  readonly saveIntervalMs: number;
  /** Called after a profile seeded the engine (cached plans are then stale). */
  readonly onSeeded: () => void;
  /** The ops the engine's GPUs warmed up on (saved with the profile). */
  readonly warmUps: () => readonly WarmUpExample[];
  /** Called with a used profile's warm-ups of this engine's backends (the engine runs them in the background). */
  readonly onWarmUps: (examples: readonly WarmUpExample[]) => void;
}

/** The engine's profile: `engine.profile`. */
export class EngineProfile {
  private readonly options: EngineProfileOptions;
  /** The store, until it fails (then the engine learns in memory only). */
  private store: ProfileStore | undefined;
  /** The save scheduled by noteLearned, until it runs. */
  private pendingSave: unknown = undefined;
  private savedLearned = 0;
  private saving: Promise<void> = Promise.resolve();
  /** Parts beside the engine that keep what they learn in its profile, by name. */
  private readonly sections = new Map<string, ProfileSection>();
  /** The used profile's sections that no part has taken yet (kept, and saved again, until one attaches). */
  private pendingSections: Record<string, unknown> = {};

  constructor(options: EngineProfileOptions) {
    this.options = options;
    this.store = options.store;
  }

  /** Where the profile is loaded from and saved to (the store's `where`); undefined without a store, or after it failed. */
  get storedIn(): string | undefined {
    return this.store?.where;
  }

  /** The identity of this engine's devices and version: a profile is used only by an engine with the same one. */
  fingerprint(): string {
    return this.options.fingerprint();
  }

  /** What the engine has learned, as a profile (JSON-serialisable) another engine on the same devices can import. */
  export(): ProfileData {
    const { costModel, residency, backendNames } = this.options;
    const copies: CopyProfile[] = [...backendNames].map((backend) => ({ backend, ...residency.copyPoints(backend) }));
    return {
      format: PROFILE_FORMAT,
      fingerprint: this.fingerprint(),
      savedAt: new Date().toISOString(),
      costs: costModel.snapshot(),
      copies: copies.filter((c) => c.upload.length > 0 || c.download.length > 0),
      readBack: this.options.readBack.entries(),
      warmUps: this.options.warmUps(),
      sections: { ...this.pendingSections, ...Object.fromEntries([...this.sections].map(([n, s]) => [n, s.export()])) },
    };
  }

  /**
   * Seeds the engine from a profile (an object from export() or its JSON text). A corrupt one, or one of other
   * devices, version or format, is ignored with a 'profile-ignored' notice naming why; a used one gives 'profile-loaded'.
   */
  import(profile: ProfileData | string, source = 'import()'): ProfileImport {
    let data: ProfileData;
    try {
      data = typeof profile === 'string' ? parseProfile(profile) : checkProfile(profile);
    } catch (error) {
      return this.ignored(source, errorMessage(error));
    }
    const here = this.fingerprint();
    if (data.fingerprint !== here)
      return this.ignored(source, `learned on other devices or another version: "${data.fingerprint}", here "${here}"`);
    const { costModel, residency, backendNames, telemetry } = this.options;
    const seeded = costModel.seed(data.costs.filter((c) => backendNames.has(c.backend)));
    for (const c of data.copies)
      if (backendNames.has(c.backend)) residency.seedCopyPoints(c.backend, c.upload, c.download);
    this.options.readBack.seed(data.readBack);
    this.options.onSeeded();
    const warmUps = data.warmUps.filter((w) => backendNames.has(w.backend));
    if (warmUps.length > 0) this.options.onWarmUps(warmUps);
    this.pendingSections = { ...data.sections };
    for (const section of this.sections.values()) this.seedSection(section);
    telemetry.notice(
      'profile-loaded',
      'engine',
      `${source}: ${seeded} op/backend series, the copy times of ${data.copies.length} backend${data.copies.length === 1 ? '' : 's'} and ${warmUps.length} op${warmUps.length === 1 ? '' : 's'} to warm up, saved ${data.savedAt}`,
    );
    return { used: true, reason: undefined, seeded };
  }

  /**
   * Makes `section` part of this engine's profile: saved with it from now on, and seeded now from the used profile's
   * section of that name, if any (one section per name; attaching the same name again does nothing).
   */
  attach(section: ProfileSection): void {
    if (this.sections.has(section.name)) return;
    this.sections.set(section.name, section);
    this.seedSection(section);
  }

  /** Loads and imports the stored profile, if the store has one for these devices (at engine start). */
  async load(): Promise<ProfileImport | undefined> {
    const store = this.store;
    if (store === undefined) return undefined;
    const key = profileKey(this.fingerprint());
    let text: string | undefined;
    try {
      text = await store.load(key);
    } catch (error) {
      this.storeFailed(`reading ${key} from ${store.where} failed: ${errorMessage(error)}`);
      return undefined;
    }
    return text === undefined ? undefined : this.import(text, `${store.where} ${key}`);
  }

  /**
   * Called after each measured call: schedules a save saveIntervalMs from now unless one is scheduled (a timer that
   * does not keep a Node process alive), so a burst of learning is saved once, soon after it.
   */
  noteLearned(): void {
    if (this.store === undefined || this.pendingSave !== undefined) return;
    if (this.options.costModel.learned === this.savedLearned) return;
    this.pendingSave = startBackgroundTimer(() => {
      this.pendingSave = undefined;
      void this.save();
    }, this.options.saveIntervalMs);
  }

  /** Saves now if anything was learned since the last save, after any save in flight (engine dispose, page hide). */
  async save(): Promise<void> {
    if (this.pendingSave !== undefined) cancelTimer(this.pendingSave);
    this.pendingSave = undefined;
    await this.saving;
    if (this.options.costModel.learned === this.savedLearned) return;
    await this.write();
  }

  /** One write at a time; a failure turns the store off with a notice (the engine goes on learning in memory). */
  private write(): Promise<void> {
    const next = this.saving.then(async () => {
      const store = this.store;
      if (store === undefined) return;
      const learned = this.options.costModel.learned;
      const key = profileKey(this.fingerprint());
      try {
        await store.save(key, JSON.stringify(this.export()));
        this.savedLearned = learned;
      } catch (error) {
        this.storeFailed(`saving ${key} to ${store.where} failed: ${errorMessage(error)}; learning in memory only`);
      }
    });
    this.saving = next;
    return next;
  }

  /** Seeds `section` from the pending value of its name; one it refuses is noticed and dropped. */
  private seedSection(section: ProfileSection): void {
    if (!Object.hasOwn(this.pendingSections, section.name)) return;
    const value = this.pendingSections[section.name];
    delete this.pendingSections[section.name];
    try {
      section.import(value);
    } catch (error) {
      this.options.telemetry.notice('profile-ignored', 'engine', `section ${section.name}: ${errorMessage(error)}`);
    }
  }

  private ignored(source: string, reason: string): ProfileImport {
    this.options.telemetry.notice('profile-ignored', 'engine', `${source}: ${reason}`);
    return { used: false, reason, seeded: 0 };
  }

  private storeFailed(detail: string): void {
    this.store = undefined;
    this.options.telemetry.notice('profile-store-failed', 'engine', detail);
  }
}
