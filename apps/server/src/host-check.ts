// The Host allow-list. A server on loopback is reachable from any web page the user opens through DNS rebinding
// (evil.example resolves to 127.0.0.1): the browser then sends `Host: evil.example:8080`. Refusing Host names the
// server does not answer to (421) closes that door. On loopback the default list is localhost, 127.0.0.1 and [::1]
// on the server's port; another bind address checks Host only when a list is given; '*' turns the check off.

/** Hosts a loopback server answers to by default (with its port). */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Whether `bindHost` (the listen address) is reachable from this machine only. */
export function isLoopback(bindHost: string): boolean {
  const host = bindHost.toLowerCase();
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The allow-list in force: `configured` when given (['*'] or any list holding '*': none), else the defaults on
 * loopback, else none (undefined: every Host is accepted).
 */
export function allowedHostsFor(
  bindHost: string,
  configured: readonly string[] | undefined,
): readonly string[] | undefined {
  const list = configured ?? (isLoopback(bindHost) ? DEFAULT_ALLOWED_HOSTS : undefined);
  if (list === undefined || list.includes('*')) return undefined;
  return list.map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
}

/** Splits a Host header into a lower-case name (IPv6 in brackets) and a port (undefined when absent or malformed). */
export function parseHost(header: string): { name: string; port: number | undefined } {
  const value = header.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return { name: value, port: Number.NaN };
  return { name: match[1] ?? '', port: match[2] === undefined ? undefined : Number(match[2]) };
}

/** Whether a request's Host header names an allowed host on `port` (no port in the header means 80). */
export function hostAllowed(header: string | undefined, allowed: readonly string[], port: number): boolean {
  if (header === undefined) return false;
  const host = parseHost(header);
  return allowed.includes(host.name) && (host.port ?? 80) === port;
}
