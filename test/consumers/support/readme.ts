// The README's runnable examples: fenced code blocks whose info string names a file (```js file=example.mjs), maybe
// followed by more of the info string (` skip: <reason>`, which the doc-test reads).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './pack.ts';

/** The blocks of `readme` (a path relative to the repository) that name a file, by file name. */
export function readmeExamples(readme: string): Map<string, string> {
  const text = readFileSync(path.join(REPO_ROOT, readme), 'utf8');
  const examples = new Map<string, string>();
  for (const match of text.matchAll(/^```\w+ file=(\S+)[^\n]*\n([\s\S]*?)^```$/gm)) {
    const [, file, code] = match;
    if (file === undefined || code === undefined) continue;
    if (examples.has(file)) throw new Error(`${readme}: two examples named ${file}`);
    examples.set(file, code);
  }
  return examples;
}

/** One example by name, or an error naming the README. */
export function readmeExample(readme: string, file: string): string {
  const code = readmeExamples(readme).get(file);
  if (code === undefined) throw new Error(`${readme} has no example named ${file}`);
  return code;
}
