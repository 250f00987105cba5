// Admission of requests through a limiter. A request that finds the limiter full is refused before its body is
// read (cheap, even under a flood); otherwise it takes a slot after parsing and validation (so a slow or invalid
// body never holds one) and keeps it until its handler has computed the answer. A client that leaves while waiting
// gives its place up; one that leaves while its answer is computed does not free the slot early (the work goes on).
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
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

/** `handler` run while holding a slot of `limiter`: 503 with Retry-After when refused. */
export function limited<R extends FastifyRequest, P extends FastifyReply>(limiter: Limiter, handler: (request: R, reply: P) => Promise<unknown>): (request: R, reply: P) => Promise<unknown> {
  return async (request, reply) => {
    let release: () => void;
    try {
      release = await acquireFor(limiter, reply);
    } catch (error) {
      if (error instanceof OverloadedError) return sendOverloaded(request, reply, error);
      if (error instanceof AbandonedError) return reply.hijack(); // nobody is left to answer
      throw error;
    }
    try {
      return await handler(request, reply);
    } finally {
      release();
    }
  };
}
