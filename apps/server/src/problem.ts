// One error shape for every answer that is not a success: RFC 9457 problem details, sent as
// application/problem+json: { type, title, status, detail, instance } plus `field` when one field is to blame.
// Routes, fastify's parser and validation errors, 404/405, the limiters' 503 and the raw 400/408/431 written to
// sockets that never became a request all use it.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Content type of every error answer. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Longest `instance` echoed back (paths can be long and are attacker-chosen). */
const MAX_INSTANCE_CHARS = 200;

/** An RFC 9457 problem details object. */
export interface Problem {
  /** A URI naming the problem type; 'about:blank': the status says it all. */
  readonly type: string;
  /** The status's reason phrase. */
  readonly title: string;
  /** The HTTP status. */
  readonly status: number;
  /** What went wrong with this request, naming the value and the limit. */
  readonly detail: string;
  /** The request path (no query), when there was a request. */
  readonly instance?: string;
  /** The offending field, e.g. '/k' or 'queries[3].word' (extension member). */
  readonly field?: string;
}

/** Extras of one problem answer. */
export interface ProblemExtras {
  /** The offending field. */
  readonly field?: string;
  /** Headers to add (Allow, Retry-After, Connection). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The path of a request URL, without the query, cut to MAX_INSTANCE_CHARS. */
export function instancePath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  return path.length > MAX_INSTANCE_CHARS ? `${path.slice(0, MAX_INSTANCE_CHARS)}...` : path;
}

/** A problem object for `status`. */
export function problem(status: number, detail: string, instance?: string, field?: string): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(instance === undefined ? {} : { instance }),
    ...(field === undefined ? {} : { field }),
  };
}

/** Sends a problem answer for `request` and returns the reply (so an async hook can `return sendProblem(...)`). */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: string,
  extras: ProblemExtras = {},
): FastifyReply {
  for (const [name, value] of Object.entries(extras.headers ?? {})) reply.header(name, value);
  return reply
    .status(status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem(status, detail, instancePath(request.url), extras.field));
}

/** A whole HTTP/1.1 response carrying a problem, for a socket that never became a request; the socket is closed after. */
export function rawProblemResponse(status: number, detail: string): string {
  const body = JSON.stringify(problem(status, detail));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Status and detail for an error Node's HTTP parser reports on a socket ('clientError'); undefined: nothing to answer. */
export function clientErrorProblem(code: string | undefined): { status: number; detail: string } | undefined {
  if (code === 'ECONNRESET' || code === 'EPIPE') return undefined;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, detail: 'the request did not arrive completely within the request timeout' };
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, detail: `the request line and headers exceed ${maxHeaderSize} bytes` };
  return { status: 400, detail: `the request is not valid HTTP/1.1 (${code ?? 'unknown parser error'})` };
}
