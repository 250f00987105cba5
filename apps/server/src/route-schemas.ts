// Each route's schema: what it is for (summary, description), its body, and its answers by status and media type.
// Fastify validates bodies and serialises answers with them; openapi.ts turns them into the OpenAPI document.
import {
  analogyAnswer,
  anyObject,
  batchAnswer,
  healthAnswer,
  nearestAnswer,
  problemSchema,
  spreadAnswer,
  text,
  traceAnswer,
} from './response-schemas.ts';
import { analogyBody, batchBody, nearestBody, spreadBody } from './schemas.ts';

const json = <S>(schema: S) => ({ content: { 'application/json': { schema } } }) as const;
const problems = { content: { 'application/problem+json': { schema: problemSchema } } } as const;
/** Every route may answer a problem: 4xx for the request, 5xx for the server (503 with Retry-After when busy). */
const errors = { '4xx': problems, '5xx': problems } as const;

/** POST /api/nearest */
export const nearestRoute = {
  summary: 'Nearest words to a word or a vector',
  description:
    'Brute force (cosine then top-k on the engine, batched with concurrent requests) or HNSW; the query word is left out of its answer.',
  body: nearestBody,
  response: { 200: json(nearestAnswer), ...errors },
} as const;

/** POST /api/analogy */
export const analogyRoute = {
  summary: 'Words nearest to a - b + c',
  description: 'The three words are left out of the answer.',
  body: analogyBody,
  response: { 200: json(analogyAnswer), ...errors },
} as const;

/** POST /api/batch */
export const batchRoute = {
  summary: 'Many nearest-word queries at once',
  description: 'Streamed (chunked), a slice of rows at a time.',
  body: batchBody,
  response: { 200: json(batchAnswer), ...errors },
} as const;

/** POST /api/spread */
export const spreadRoute = {
  summary: 'Spreading activation over WordNet',
  description: "From a word's synsets or one synset id; the most activated synsets with their lemmas and glosses.",
  body: spreadBody,
  response: { 200: json(spreadAnswer), ...errors },
} as const;

/** GET /healthz */
export const healthRoute = {
  summary: "Each backend's state",
  description: '200 while a backend can serve, else 503 with the same body.',
  response: {
    200: json(healthAnswer),
    503: {
      content: { 'application/json': { schema: healthAnswer }, 'application/problem+json': { schema: problemSchema } },
    },
    '4xx': problems,
  },
} as const;

/** GET /metrics */
export const metricsRoute = {
  summary: 'Prometheus metrics',
  description:
    "Text exposition 0.0.4: prom-client's process metrics, the HTTP and limiter metrics, then the engine's telemetry (tandem_ops_total, tandem_op_duration_seconds, tandem_fallbacks_total, tandem_moved_bytes_total).",
  response: { 200: { content: { 'text/plain': { schema: text } } }, ...errors },
} as const;

/** GET /trace */
export const traceRoute = {
  summary: "Chrome trace of the engine's recent ops",
  description:
    'Open in Perfetto. One track per concurrent lane of each backend; failure messages and notice details left out (see /debug).',
  response: { 200: json(traceAnswer), ...errors },
} as const;

/** GET /openapi.json */
export const openApiRoute = { summary: 'This document', response: { 200: json(anyObject), ...errors } } as const;

/** GET /debug (only when enabled) */
export const debugRoute = {
  summary: 'Driver strings, failure messages, the Node version (opt-in)',
  response: { 200: json(anyObject), ...errors },
} as const;
