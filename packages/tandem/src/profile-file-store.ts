// Profiles in Node: one JSON file per device fingerprint under the user's cache folder. A save writes a temporary
// file beside the profile and renames it over: a reader (another process starting) sees the old or the new profile,
// never half of one, and of two processes saving at once the last rename wins, whole.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProfileStore } from '@tandem/core';
import { readEnv } from './env.ts';

/** Temporary names of this process's saves (pid and a counter: two saves never share one). */
let saves = 0;

/** Profiles as files `<dir>/<key>.json`. */
export class FileProfileStore implements ProfileStore {
  /** The folder. */
  readonly where: string;

  constructor(dir: string) {
    this.where = dir;
  }

  async load(key: string): Promise<string | undefined> {
    try {
      return await readFile(this.fileOf(key), 'utf8');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async save(key: string, text: string): Promise<void> {
    const file = this.fileOf(key);
    const temporary = `${file}.${process.pid}.${++saves}.tmp`;
    await mkdir(this.where, { recursive: true });
    try {
      await writeFile(temporary, text, 'utf8');
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  private fileOf(key: string): string {
    return path.join(this.where, `${key}.json`);
  }
}

/**
 * Where profiles are kept in Node: $TANDEM_PROFILE_DIR, else the platform's cache folder + /tandem
 * ($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows).
 */
export function defaultProfileDir(): string {
  const explicit = readEnv('TANDEM_PROFILE_DIR');
  if (explicit !== undefined && explicit !== '') return explicit;
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'tandem');
  if (process.platform === 'win32')
    return path.join(readEnv('LOCALAPPDATA') ?? path.join(home, 'AppData', 'Local'), 'tandem', 'cache');
  const xdg = readEnv('XDG_CACHE_HOME');
  return path.join(xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'tandem');
}
