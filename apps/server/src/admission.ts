// Admission of requests through a limiter. A request that finds the limiter full is refused before its body is
// read (cheap, even under a flood); otherwise it takes a slot after parsing and validation (so a slow or invalid
// body never holds one) and keeps it until its handler has computed the answer. A client that leaves while waiting
// gives its place up; one that leaves while its answer is computed does not free the slot early (the work goes on).
// While a request waits for its slot or is computed, its socket's inactivity timeout is off: that silence is the
// server's, not the client's.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { AbandonedError, OverloadedError, type Limiter } from './limiter.ts';
import { sendProblem } from './problem.ts';

/** Answers 503 with Retry-After for a refused request. */
export function sendOverloaded(request: FastifyRequest, reply: FastifyReply, error: OverloadedError): FastifyReply {
  return sendProblem(request, reply, 503, error.message, { headers: { 'Retry-After': String(error.retryAfterS) } });
}

/** An onRequest hook that refuses at once, before the body is read, while `limiter` and its queue are full. */
export function shedWhenFull(limiter: Limiter): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const refused = limiter.shedIfFull();
    // Node discards the unread body after the answer and keeps the connection: closing it with the body unread
    // would reset it, and the client could lose the 503 before reading it.
    if (refused !== undefined) return sendOverloaded(request, reply, refused);
    return undefined;
  };
}

/** Requests of each socket the server is busy with (pipelined requests share a socket). */
const busyBySocket = new WeakMap<Socket, number>();

/** Runs `work` with `socket`'s inactivity timeout off, and sets it back to `idleMs` once no request of it is busy. */
export async function serverBusy<T>(socket: Socket, idleMs: number, work: () => Promise<T>): Promise<T> {
  const busy = busyBySocket.get(socket) ?? 0;
  busyBySocket.set(socket, busy + 1);
  if (busy === 0) socket.setTimeout(0);
  try {
    return await work();
  } finally {
    const left = (busyBySocket.get(socket) ?? 1) - 1;
    busyBySocket.set(socket, left);
    if (left === 0 && !socket.destroyed) socket.setTimeout(idleMs);
  }
}

/** A slot of `limiter` for this request, given up if the client leaves while waiting (AbandonedError). */
export async function acquireFor(limiter: Limiter, reply: FastifyReply): Promise<() => void> {
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  reply.raw.once('close', onClose);
  try {
    return await limiter.acquire(gone.signal);
  } finally {
    reply.raw.removeListener('close', onClose);
  }
}

/** What a limited handler computes: the answer to send (an object, or a stream of JSON). */
export type Answer = Record<string, unknown> | Readable;

/**
 * A route handler that computes its answer with `compute` while holding a slot of `limiter` (503 with Retry-After
 * when refused), then sends it after giving the slot back. `compute` returns the answer, never the reply: a reply is
 * a thenable that settles only once sent, which would hold the slot (and keep the socket timeout off) while a slow
 * client reads.
 */
export function limited<R extends FastifyRequest, P extends FastifyReply>(
  limiter: Limiter,
  compute: (request: R, reply: P) => Promise<Answer>,
): (request: R, reply: P) => Promise<unknown> {
  return async (request, reply) => {
    const outcome = await serverBusy(
      request.raw.socket,
      request.server.server.timeout,
      async (): Promise<{ answer: Answer } | { refused: OverloadedError } | undefined> => {
        let release: () => void;
        try {
          release = await acquireFor(limiter, reply);
        } catch (error) {
          if (error instanceof OverloadedError) return { refused: error };
          if (error instanceof AbandonedError) return undefined; // nobody is left to answer
          throw error;
        }
        try {
          return { answer: await compute(request, reply) };
        } finally {
          release();
        }
      },
    );
    if (outcome === undefined) return reply.hijack();
    if ('refused' in outcome) return sendOverloaded(request, reply, outcome.refused);
    return reply.send(outcome.answer);
  };
}
