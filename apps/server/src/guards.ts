// Checks every request passes before its body is read: the server is not shutting down (503), the URL and its path
// segments are of sane length (414, 404), and the Host header is allowed (421; see host-check.ts).
import type { FastifyInstance } from 'fastify';
import { hostAllowed } from './host-check.ts';
import { sendProblem } from './problem.ts';
import { MAX_SEGMENT_CHARS, MAX_URL_CHARS, SHUTDOWN_RETRY_AFTER_S } from './settings.ts';

/** What the guards need to know. */
export interface GuardOptions {
  /** Allowed Host names (lower case) on the server's port; undefined: any Host. */
  readonly allowedHosts: readonly string[] | undefined;
  /** Whether the server is shutting down. */
  readonly closing: () => boolean;
}

/** The port the app listens on, read once it is listening. */
function listeningPort(app: FastifyInstance): number | undefined {
  const address = app.server.address();
  return address !== null && typeof address === 'object' ? address.port : undefined;
}

/** Adds the guards as the app's first onRequest hook. */
export function addGuards(app: FastifyInstance, options: GuardOptions): void {
  let port: number | undefined;
  app.addHook('onRequest', async (request, reply) => {
    if (options.closing()) {
      return sendProblem(request, reply, 503, 'the server is shutting down', {
        headers: { 'Retry-After': String(SHUTDOWN_RETRY_AFTER_S), Connection: 'close' },
      });
    }
    if (options.allowedHosts !== undefined) {
      port ??= listeningPort(app);
      const host = request.headers.host;
      if (port === undefined || !hostAllowed(host, options.allowedHosts, port)) {
        const shown = host === undefined ? 'no Host header' : `Host "${host.slice(0, 100)}"`;
        return sendProblem(
          request,
          reply,
          421,
          `${shown} is not one this server answers to (${options.allowedHosts.join(', ')} on port ${port ?? '?'}; see --allowed-hosts)`,
        );
      }
    }
    if (request.url.length > MAX_URL_CHARS)
      return sendProblem(
        request,
        reply,
        414,
        `the URL has ${request.url.length} characters; the limit is ${MAX_URL_CHARS}`,
      );
    const path = request.url.split('?', 1)[0] ?? '';
    const longest = Math.max(...path.split('/').map((s) => s.length));
    if (longest > MAX_SEGMENT_CHARS)
      return sendProblem(
        request,
        reply,
        404,
        `a path segment has ${longest} characters; no route or file has one over ${MAX_SEGMENT_CHARS}`,
      );
    return undefined;
  });
}
