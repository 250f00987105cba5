// A consumer's project: a new folder outside the repository with its own package.json, the packed tarballs and
// whatever else it needs installed by npm (from npm's cache when it has them), and helpers to run commands there.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LIBRARY_DIRS, packedLibraries, REPO_ROOT } from './pack.ts';

const execFileAsync = promisify(execFile);

/** What a command printed and how it ended. */
export interface Ran {
  /** Standard output. */
  readonly stdout: string;
  /** Standard error. */
  readonly stderr: string;
  /** Exit code (0: success). */
  readonly code: number;
}

/** A consumer project on disk. */
export interface ConsumerProject {
  /** Its folder. */
  readonly dir: string;
  /** Runs a command in the folder; never throws for a non-zero exit. */
  run(command: string, args: readonly string[], env?: Readonly<Record<string, string>>): Promise<Ran>;
  /** Removes the folder (kept when TANDEM_KEEP_CONSUMERS=1, to look at it). */
  remove(): void;
}

/** Options of consumerProject. */
export interface ProjectOptions {
  /** Package names to install from the packed tarballs, e.g. ['tandem'] (the tarballs of their @tandem dependencies come along). */
  readonly tarballs: readonly string[];
  /** Packages from the registry, at the version this repository has installed (so npm's cache serves them). */
  readonly fromRegistry?: readonly string[];
  /** Files to write, by path relative to the project. */
  readonly files: Readonly<Record<string, string>>;
  /** package.json fields beyond name, private and type. */
  readonly packageJson?: Readonly<Record<string, unknown>>;
}

/** The version of a package installed in this repository's node_modules. */
export function repoVersion(name: string): string {
  const manifest: unknown = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  );
  const version: unknown = Reflect.get(Object(manifest), 'version');
  if (typeof version !== 'string') throw new Error(`node_modules/${name}/package.json has no version`);
  return version;
}

/** Creates the project and installs into it. The tarballs' own @tandem dependencies are installed from tarballs too. */
export async function consumerProject(name: string, options: ProjectOptions): Promise<ConsumerProject> {
  const dir = newProjectDir(name, options.packageJson);
  for (const [file, text] of Object.entries(options.files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  // There is no registry for @tandem/*: a tarball's dependency on @tandem/core@0.1.0 is met by installing the
  // @tandem/core tarball beside it, so the wanted packages come with the tarballs of their @tandem dependencies.
  const specs = await tarballSpecs(options.tarballs);
  specs.push(...(options.fromRegistry ?? []).map((n) => `${n}@${repoVersion(n)}`));
  const project = handle(dir);
  const install = await project.run('npm', [
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...specs,
  ]);
  if (install.code !== 0) throw new Error(`npm install in ${dir} failed (${install.code}):\n${install.stderr}`);
  return project;
}

function tarballOf(tarballs: ReadonlyMap<string, string>, name: string): string {
  const file = tarballs.get(name);
  if (file === undefined) throw new Error(`no tarball for ${name}`);
  return file;
}

/** The packages and, transitively, the @tandem packages and `tandem` they depend on (from the repository's manifests). */
export function tandemClosure(names: readonly string[]): Set<string> {
  const dirOf = new Map<string, string>();
  for (const d of LIBRARY_DIRS) dirOf.set(manifestOf(d).name, d);
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    const dir = dirOf.get(name);
    if (dir === undefined) throw new Error(`${name} is not a library package of this repository`);
    seen.add(name);
    for (const dep of Object.keys(manifestOf(dir).dependencies)) if (dirOf.has(dep)) visit(dep);
  };
  for (const n of names) visit(n);
  return seen;
}

function manifestOf(dir: string): { name: string; dependencies: Record<string, string> } {
  const manifest: unknown = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages', dir, 'package.json'), 'utf8'));
  const name: unknown = Reflect.get(Object(manifest), 'name');
  const deps: unknown = Reflect.get(Object(manifest), 'dependencies');
  if (typeof name !== 'string') throw new Error(`packages/${dir}/package.json has no name`);
  const dependencies: Record<string, string> = {};
  if (typeof deps === 'object' && deps !== null)
    for (const [k, v] of Object.entries(deps)) if (typeof v === 'string') dependencies[k] = v;
  return { name, dependencies };
}

/** Runs a command in `dir`; never throws for a non-zero exit. */
export async function runIn(
  dir: string,
  command: string,
  args: readonly string[],
  env?: Readonly<Record<string, string>>,
): Promise<Ran> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: dir,
      env: { ...process.env, ...env },
      maxBuffer: 64 << 20,
      timeout: 300_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = Object(error);
    const code: unknown = Reflect.get(e, 'code');
    return {
      stdout: String(Reflect.get(e, 'stdout') ?? ''),
      stderr: String(Reflect.get(e, 'stderr') ?? error),
      code: typeof code === 'number' ? code : 1,
    };
  }
}

/** A temporary folder outside the repository, with a package.json of its own. */
export function newProjectDir(name: string, packageJson: Readonly<Record<string, unknown>> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tandem-consumer-${name}-`));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module', ...packageJson }, null, 2),
  );
  return dir;
}

/** The tarball paths of `names` and of the @tandem packages they depend on. */
export async function tarballSpecs(names: readonly string[]): Promise<string[]> {
  const { tarballs } = await packedLibraries();
  return [...tandemClosure(names)].map((n) => tarballOf(tarballs, n));
}

function handle(dir: string): ConsumerProject {
  return {
    dir,
    run: (command, args, env) => runIn(dir, command, args, env),
    remove: () => {
      if (process.env['TANDEM_KEEP_CONSUMERS'] !== '1') rmSync(dir, { recursive: true, force: true });
    },
  };
}
