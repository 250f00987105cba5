// A profile: what an engine learned of its devices (the cost model's sizes, the copy times), saved so that the next
// engine on the same devices starts from it instead of from priors. Plain JSON; checked field by field on the way
// in, since it comes from disk, a browser's storage or another machine.
import type { CopyPoint } from '../copy-times.ts';
import { crc32 } from '../crc32.ts';
import type { WarmUpExample } from '../engine-warmup.ts';
import { TandemError } from '../errors.ts';
import { isOpOver, isTensorSpec } from '../op-guard.ts';
import type { CostSeriesSnapshot } from '../scheduler/cost-model.ts';

/** The profile format this engine writes and reads; a profile of another format is ignored. */
export const PROFILE_FORMAT = 1;

/** What one backend's copies were learned to take, each way. */
export interface CopyProfile {
  /** Backend name. */
  readonly backend: string;
  /** Host to device: typical bytes and median ms per size class. */
  readonly upload: readonly CopyPoint[];
  /** Device to host. */
  readonly download: readonly CopyPoint[];
}

/** A saved profile (JSON). */
export interface ProfileData {
  /** PROFILE_FORMAT when written. */
  readonly format: number;
  /** The devices and engine version it was learned on (profileFingerprint). */
  readonly fingerprint: string;
  /** When it was saved, ISO 8601. */
  readonly savedAt: string;
  /** The cost model's learned sizes per (op, dtype, backend). */
  readonly costs: readonly CostSeriesSnapshot[];
  /** Copy times per backend. */
  readonly copies: readonly CopyProfile[];
  /** How often each op's outputs were read back to the host (0..1), per op key. */
  readonly readBack: ReadonlyArray<{ readonly opKey: string; readonly rate: number }>;
  /** Ops the GPUs warmed up on (specs and parameters, no data): the next engine warms them up at start. */
  readonly warmUps: readonly WarmUpExample[];
  /** What parts beside the engine learned (ProfileSection), by section name, e.g. the graph executor's plans. */
  readonly sections: Readonly<Record<string, unknown>>;
}

/** Something beside the engine that learns per device and keeps it in the engine's profile (the graph executor's plans). */
export interface ProfileSection {
  /** Its key in the profile's `sections`. */
  readonly name: string;
  /** What it learned, JSON-serialisable. */
  export(): unknown;
  /** Seeds it from what a used profile kept; throws to have that section ignored (with a notice). */
  import(value: unknown): void;
}

/** Where profiles are kept between engines (a file in Node, IndexedDB in a browser, or the caller's own). */
export interface ProfileStore {
  /** Where, in words, for notices ("/home/me/.cache/tandem", "IndexedDB tandem-profiles"). */
  readonly where: string;
  /** The text saved under `key`, or undefined when there is none. */
  load(key: string): Promise<string | undefined>;
  /** Saves `text` under `key`, replacing what was there in one step (a reader never sees half of it). */
  save(key: string, text: string): Promise<void>;
}

/** One backend as a profile's fingerprint sees it. */
export interface FingerprintPart {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: string;
  /** The device's name (adapter, CPU, GPU model and driver where the backend reports it). */
  readonly device: string;
  /** The device's features (sorted here). */
  readonly features: readonly string[];
}

/** The identity of what a profile was learned on: engine version, format and each available backend's device. */
export function profileFingerprint(version: string, parts: readonly FingerprintPart[]): string {
  const backends = [...parts]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((p) => `${p.name}(${p.kind}): ${p.device} [${[...p.features].sort().join(',')}]`);
  return `tandem ${version} profile v${PROFILE_FORMAT}; ${backends.join('; ')}`;
}

/** A short store key for a fingerprint: profiles of different devices or versions never share one. */
export function profileKey(fingerprint: string): string {
  const units = new Uint8Array(2 * fingerprint.length); // the UTF-16 code units, little-endian: a stable input to hash
  for (let i = 0; i < fingerprint.length; i++) {
    const unit = fingerprint.charCodeAt(i);
    units[2 * i] = unit & 0xff;
    units[2 * i + 1] = unit >>> 8;
  }
  return `profile-${crc32(units).toString(16).padStart(8, '0')}`;
}

/** A profile that cannot be used, with what is wrong. */
export class ProfileError extends TandemError {
  override readonly name: string = 'ProfileError';
  constructor(problem: string) {
    super('PROFILE_INVALID', `profile: ${problem}`);
  }
}

/** Parses and checks a profile's JSON text; throws ProfileError naming the first thing wrong. */
export function parseProfile(text: string): ProfileData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ProfileError(`not JSON (${text.length} characters): ${why}`);
  }
  return checkProfile(value);
}

/** Checks a parsed profile; throws ProfileError naming the first thing wrong. */
export function checkProfile(value: unknown): ProfileData {
  const root = record(value, 'the profile');
  const format = root['format'];
  if (format !== PROFILE_FORMAT)
    throw new ProfileError(`format ${describe(format)}; this engine reads format ${PROFILE_FORMAT}`);
  return {
    format,
    fingerprint: text(root['fingerprint'], 'fingerprint'),
    savedAt: text(root['savedAt'], 'savedAt'),
    costs: list(root['costs'], 'costs').map((c, i) => costSeries(c, `costs[${i}]`)),
    copies: list(root['copies'], 'copies').map((c, i) => copyProfile(c, `copies[${i}]`)),
    readBack: list(root['readBack'], 'readBack').map((r, i) => {
      const entry = record(r, `readBack[${i}]`);
      return {
        opKey: text(entry['opKey'], `readBack[${i}].opKey`),
        rate: finite(entry['rate'], `readBack[${i}].rate`),
      };
    }),
    // Absent in profiles saved before warm-ups were kept: nothing to warm up.
    warmUps: root['warmUps'] === undefined ? [] : list(root['warmUps'], 'warmUps').map(warmUpExample),
    // Checked by each section's import when its part attaches (EngineProfile.attach).
    sections: root['sections'] === undefined ? {} : record(root['sections'], 'sections'),
  };
}

function warmUpExample(value: unknown, i: number): WarmUpExample {
  const r = record(value, `warmUps[${i}]`);
  const op = r['op'];
  if (!isOpOver(op, isTensorSpec))
    throw new ProfileError(`warmUps[${i}].op is not an op over tensor specs ({ dtype, shape }) with its parameters`);
  return { backend: text(r['backend'], `warmUps[${i}].backend`), op };
}

function costSeries(value: unknown, where: string): CostSeriesSnapshot {
  const r = record(value, where);
  return {
    opKey: text(r['opKey'], `${where}.opKey`),
    backend: text(r['backend'], `${where}.backend`),
    sizes: list(r['sizes'], `${where}.sizes`).map((size, j) => {
      const at = `${where}.sizes[${j}]`;
      const triple = list(size, at);
      if (triple.length !== 3) throw new ProfileError(`${at} has ${triple.length} numbers, not 3`);
      return [finite(triple[0], `${at}[0]`), finite(triple[1], `${at}[1]`), finite(triple[2], `${at}[2]`)] as const;
    }),
  };
}

function copyProfile(value: unknown, where: string): CopyProfile {
  const r = record(value, where);
  const points = (v: unknown, name: string): CopyPoint[] =>
    list(v, `${where}.${name}`).map((p, j) => {
      const at = `${where}.${name}[${j}]`;
      const point = record(p, at);
      const bytes = finite(point['bytes'], `${at}.bytes`);
      const ms = finite(point['ms'], `${at}.ms`);
      if (bytes <= 0 || ms < 0) throw new ProfileError(`${at} is ${bytes} bytes in ${ms} ms`);
      return { bytes, ms };
    });
  return {
    backend: text(r['backend'], `${where}.backend`),
    upload: points(r['upload'], 'upload'),
    download: points(r['download'], 'download'),
  };
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProfileError(`${where} is ${describe(value)}, not an object`);
  return Object.fromEntries(Object.entries(value));
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new ProfileError(`${where} is ${describe(value)}, not an array`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new ProfileError(`${where} is ${describe(value)}, not a string`);
  return value;
}

function finite(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ProfileError(`${where} is ${describe(value)}, not a finite number`);
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `${typeof value} ${String(value).slice(0, 40)}`;
}
