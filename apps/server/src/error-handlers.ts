// Every way a request can fail, answered as problem+json (problem.ts): errors thrown by routes and by fastify
// (parsing, validation, limits), unknown paths (404) and known paths with the wrong method (405 with Allow), bad
// URLs, and what Node's HTTP parser refuses before there is a request (400, 408, 431), which is counted here too.
import { DisposedError, InvalidArgumentError } from '@tandem/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { sendOverloaded } from './admission.ts';
import { RequestError } from './errors.ts';
import { OverloadedError } from './limiter.ts';
import type { ServerMetrics } from './metrics.ts';
import { clientErrorProblem, rawProblemResponse, sendProblem } from './problem.ts';
import { BODY_LIMIT, SHUTDOWN_RETRY_AFTER_S } from './settings.ts';

/** The HTTP status an error thrown by fastify carries, if any. */
function statusOf(error: Error): number | undefined {
  return 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

/** The field a schema validation error points at ('' for the body as a whole). */
function validationField(error: Error): string | undefined {
  if (!('validation' in error) || !Array.isArray(error.validation)) return undefined;
  const first: unknown = error.validation[0];
  return typeof first === 'object' && first !== null && 'instancePath' in first ? String(first.instancePath) : '';
}

/** The value at a JSON pointer ('/queries/3/word') in `body`, undefined when absent. */
function valueAt(body: unknown, pointer: string): unknown {
  let at: unknown = body;
  for (const key of pointer.split('/').slice(1)) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = Reflect.get(at, key.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  return at;
}

/** A short printable form of a request value: a primitive as JSON (cut), a container by its kind and size only. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object'; // never serialised: it may nest 100,000 deep
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** The app's error handler: maps every error to a problem answer; a 500 says only the error's class. */
export function errorHandler(
  log: (line: string) => void,
): (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, request, reply) => {
    if (error instanceof RequestError)
      return sendProblem(request, reply, error.statusCode, error.message, { field: error.field });
    if (error instanceof InvalidArgumentError)
      return sendProblem(request, reply, 400, error.message, { field: error.argument });
    if (error instanceof OverloadedError) return sendOverloaded(request, reply, error);
    if (error instanceof DisposedError)
      return sendProblem(request, reply, 503, 'the server is shutting down', {
        headers: { 'Retry-After': String(SHUTDOWN_RETRY_AFTER_S) },
      });
    const status = statusOf(error);
    if (status === 413)
      return sendProblem(request, reply, 413, `the request body exceeds the ${BODY_LIMIT}-byte limit`);
    if (status !== undefined && status >= 400 && status < 500) {
      const field = validationField(error);
      if (field === undefined) return sendProblem(request, reply, status, error.message);
      // A schema error names the field and the rule; add the value it got, when the field is there.
      const value = field === '' ? undefined : valueAt(request.body, field);
      return sendProblem(
        request,
        reply,
        status,
        value === undefined ? error.message : `${error.message} (got ${shown(value)})`,
        { field },
      );
    }
    request.log.error({ err: error }, 'internal error');
    log(`internal error on ${request.method} ${request.url}: ${error.stack ?? error.message}`);
    return sendProblem(request, reply, 500, `the server failed to answer (${error.name}); the details are in its log`);
  };
}

/** Errors fastify raises while routing (a URL that does not decode): 400. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendProblem(request, reply, statusOf(error) ?? 400, error.message);
}

/** Not found: 405 with Allow when the path exists with other methods, else 404. */
export function notFoundHandler(
  methodsByPath: ReadonlyMap<string, ReadonlySet<string>>,
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const methods = methodsByPath.get(path);
    if (methods !== undefined && !methods.has(request.method)) {
      const allow = [...methods].sort().join(', ');
      return sendProblem(request, reply, 405, `${request.method} is not allowed on ${path}; use ${allow}`, {
        headers: { Allow: allow },
      });
    }
    return sendProblem(
      request,
      reply,
      404,
      `no route for ${request.method} ${path.length > 200 ? `${path.slice(0, 200)}...` : path}`,
    );
  };
}

/** Answers what Node's parser refused on a socket with a raw problem response, counts it, and closes the socket. */
export function clientErrorHandler(metrics: ServerMetrics): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    const answer = clientErrorProblem(error.code);
    if (answer === undefined || socket.destroyed) {
      socket.destroy(); // a reset: nothing to answer
      return;
    }
    metrics.responses.inc({ route: 'unmatched', method: 'unknown', status: String(answer.status) });
    if (socket.writable) socket.write(rawProblemResponse(answer.status, answer.detail));
    socket.destroy(error);
  };
}
