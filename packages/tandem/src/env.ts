/** An environment variable in Node (process.env); undefined in browsers and workers. */
export function readEnv(name: string): string | undefined {
  const proc: unknown = Reflect.get(globalThis, 'process');
  if (typeof proc !== 'object' || proc === null) return undefined;
  const env: unknown = Reflect.get(proc, 'env');
  if (typeof env !== 'object' || env === null) return undefined;
  const value: unknown = Reflect.get(env, name);
  return typeof value === 'string' ? value : undefined;
}

/** TANDEM_FORCE_CPU=1 (or true/yes) in Node forces CPU backends. */
export function forceCpuFromEnv(): boolean {
  const v = readEnv('TANDEM_FORCE_CPU')?.toLowerCase();
  return v === '1' || v === 'true' || v === 'yes';
}
