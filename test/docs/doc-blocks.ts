// The code blocks of the READMEs, as the doc-test runs them: every ```ts / ```js block (and their aliases) of the
// repository's READMEs, each a program of its own. A block that cannot run here says so in its info string with a
// reason: ```ts skip: browser-only (navigator.gpu)```. A block named `file=<name>` is written under that name
// (packages/tandem/README.md's blocks, which test/consumers also runs against the packed tarballs).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Languages the doc-test runs, by the info string's first word, and the file extension each becomes. */
const LANGUAGES: Readonly<Record<string, 'ts' | 'mjs'>> = {
  ts: 'ts',
  typescript: 'ts',
  js: 'mjs',
  javascript: 'mjs',
  mjs: 'mjs',
};

/** One code block of a README. */
export interface DocBlock {
  /** The README, relative to the root. */
  readonly readme: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's language. */
  readonly lang: string;
  /** The code. */
  readonly code: string;
  /** Why it does not run here (from `skip: <reason>`), or undefined when it runs. */
  readonly skip: string | undefined;
  /** The file name it asks for (`file=example.cjs`), if any. */
  readonly file: string | undefined;
  /** The extension it is written with: ts, mjs or cjs. */
  readonly ext: 'ts' | 'mjs' | 'cjs';
}

/** The READMEs with library examples: the root's, every package's (nested ones too) and every app's. */
export function readmes(): string[] {
  const listed = execFileSync(
    'git',
    [
      'ls-files',
      '--cached',
      '--others',
      '--exclude-standard',
      'README.md',
      'packages/**/README.md',
      'apps/*/README.md',
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return [...new Set(listed.split('\n').filter((f) => f.endsWith('README.md')))].sort();
}

/** Every runnable-language block of a README's text (other languages, such as sh, are not programs). */
export function blocksOf(readme: string, text: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${readme}:${i + 1}: a code block that never closes`);
    const lang = open[1] ?? '';
    const info = (open[2] ?? '').trim();
    const code = lines.slice(i + 1, end).join('\n');
    const line = i + 1;
    i = end;
    const ext = LANGUAGES[lang];
    if (ext === undefined) continue;
    const skipMatch = /(?:^|\s)skip:(.*)$/.exec(info);
    const skip = skipMatch === null ? undefined : (skipMatch[1] ?? '').trim();
    if (skip === '') throw new Error(`${readme}:${line}: 'skip:' needs a reason`);
    const file = /(?:^|\s)file=(\S+)/.exec(info)?.[1];
    blocks.push({ readme, line, lang, code, skip, file, ext: file?.endsWith('.cjs') === true ? 'cjs' : ext });
  }
  return blocks;
}

/** A block's file name under the doc-test's folder: README path and line, so a failure points at the block. */
export function blockFileName(block: DocBlock): string {
  const base = block.readme.replace(/\/?README\.md$/, '').replace(/[^a-zA-Z0-9]+/g, '-') || 'root';
  return `${base}-L${block.line}-${block.file?.replace(/\.[^.]+$/, '') ?? 'block'}.${block.ext}`;
}

/** A block's code as a module file: TypeScript without imports or exports gets `export {}` (top-level await). */
export function moduleText(block: DocBlock): string {
  const header = `// ${block.readme}:${block.line} (written by test/docs/doc-blocks.test.ts; edit the README, not this file)\n`;
  const isModule = /^\s*(import|export)\s/m.test(block.code);
  return `${header}${block.code}\n${block.ext === 'ts' && !isModule ? 'export {};\n' : ''}`;
}
