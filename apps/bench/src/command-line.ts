// Command lines of the bench, its probes and the stress scripts: node:util parseArgs in strict mode (an unknown flag
// or a missing value is an error, never ignored), --help printing the usage, and numbers checked with a message
// naming the flag, the value and the range. Errors exit 2 after the usage; --help exits 0.
import { parseArgs } from 'node:util';

/** One flag: parseArgs' own settings plus the line --help prints. */
export interface Flag {
  /** A value (`--rate 400`) or a switch (`--gpu`). */
  readonly type: 'string' | 'boolean';
  /** One-letter alias. */
  readonly short?: string;
  /** What --help says about it, with its default. */
  readonly help: string;
}

/** What the command is and takes. */
export interface Usage {
  /** How to run it, e.g. 'npm run bench -- <suite> [options]'. */
  readonly command: string;
  /** A line or two on what it does. */
  readonly summary: string;
  /** Positional arguments: their help lines, or undefined when none are taken. */
  readonly positionals?: readonly string[];
}

/** A parsed command line; flag names are checked against the flags it was parsed with. */
export interface CommandLine<F extends Readonly<Record<string, Flag>>> {
  /** The positional arguments. */
  readonly positionals: readonly string[];
  /** A value flag's value, undefined when absent. */
  text(name: keyof F & string): string | undefined;
  /** Whether a switch was given. */
  on(name: keyof F & string): boolean;
}

/** The usage text of a command. */
export function usageText(usage: Usage, flags: Readonly<Record<string, Flag>>): string {
  const lines = [`Usage: ${usage.command}`, '', usage.summary, ''];
  for (const line of usage.positionals ?? []) lines.push(`  ${line}`);
  const all: [string, Flag][] = [
    ...Object.entries(flags),
    ['help', { type: 'boolean', short: 'h', help: 'this text' }],
  ];
  for (const [name, flag] of all) {
    const left = `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${name}${flag.type === 'string' ? ' VALUE' : ''}`;
    lines.push(`  ${left.padEnd(30)}${flag.help}`);
  }
  return lines.join('\n');
}

/** Exits 2 with `message` and the usage. */
export function refuseArgs(message: string, usage: Usage, flags: Readonly<Record<string, Flag>>): never {
  console.error(`${message}\n\n${usageText(usage, flags)}`);
  process.exit(2);
}

/** Parses `argv` (default: this process's arguments); prints the usage and exits on --help (0) or an error (2). */
export function parseCommandLine<F extends Readonly<Record<string, Flag>>>(
  usage: Usage,
  flags: F,
  argv: readonly string[] = process.argv.slice(2),
): CommandLine<F> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, flag] of Object.entries(flags))
    options[name] = flag.short === undefined ? { type: flag.type } : { type: flag.type, short: flag.short };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: usage.positionals !== undefined });
  } catch (error) {
    refuseArgs(error instanceof Error ? error.message : String(error), usage, flags);
  }
  if (parsed.values['help'] === true) {
    console.log(usageText(usage, flags));
    process.exit(0);
  }
  const values = parsed.values;
  return {
    positionals: parsed.positionals,
    text: (name) => {
      const value = values[name];
      return typeof value === 'string' ? value : undefined;
    },
    on: (name) => values[name] === true,
  };
}

/** A number flag (or environment variable) in [min, max]: `fallback` when absent; exits 2 naming it otherwise. */
export function numberArg(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  integer = true,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    console.error(`${name} ${raw}: must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}
