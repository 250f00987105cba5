// JSON schemas of the API's answers. Fastify serialises each 2xx answer with its schema (fast-json-stringify: a
// field the schema does not name is dropped, so every field an answer carries is listed), every error is a problem
// (problem.ts), and the OpenAPI document (openapi.ts) is made from these and the request schemas. Answers keyed by
// media type: the serialiser is picked by the reply's content type, so a problem answer never meets a 200 schema.

/** RFC 9457 problem details, as problem.ts writes them. */
export const problemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', description: "A URI naming the problem type; 'about:blank': the status says it all" },
    title: { type: 'string', description: "The status's reason phrase" },
    status: { type: 'integer', description: 'The HTTP status' },
    detail: { type: 'string', description: 'What went wrong, naming the value and the limit' },
    instance: { type: 'string', description: 'The request path' },
    field: { type: 'string', description: 'The field to blame, e.g. /k or queries[3].word' },
  },
} as const;

const word = { type: 'string' } as const;
const hit = {
  type: 'object',
  additionalProperties: false,
  required: ['word', 'score'],
  properties: { word, score: { type: 'number', description: 'Cosine similarity' } },
} as const;
const hits = { type: 'array', items: hit } as const;
const backends = {
  type: 'array',
  description: 'Backends that ran the search ops meanwhile (shared with concurrent requests), with the reason',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['backend', 'reason'],
    properties: { backend: { type: 'string', description: 'op@backend' }, reason: { type: 'string' } },
  },
} as const;
const ms = { type: 'number', description: 'Time the search took, ms' } as const;

/** 200 of /api/nearest. */
export const nearestAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['results', 'method', 'backends', 'ms'],
  properties: { results: hits, method: { type: 'string', enum: ['brute', 'hnsw'] }, backends, ms },
} as const;

/** 200 of /api/analogy. */
export const analogyAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['results', 'backends', 'ms'],
  properties: { results: hits, backends, ms },
} as const;

/** 200 of /api/batch (streamed, chunked). */
export const batchAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['results', 'batchSize', 'backends', 'ms'],
  properties: {
    results: { type: 'array', items: hits, description: 'One list per query, in order' },
    batchSize: { type: 'integer' },
    backends,
    ms,
  },
} as const;

/** 200 of /api/spread. */
export const spreadAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['sources', 'activated', 'reached', 'backends', 'ms'],
  properties: {
    sources: { type: 'array', items: { type: 'string' }, description: 'Synset ids activation started from' },
    activated: {
      type: 'array',
      description: 'The most activated synsets, most first',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['synset', 'lemmas', 'activation', 'gloss'],
        properties: {
          synset: { type: 'string' },
          lemmas: { type: 'array', items: { type: 'string' } },
          activation: { type: 'number' },
          gloss: { type: 'string' },
        },
      },
    },
    reached: { type: 'integer', description: 'Synsets with any activation' },
    backends,
    ms,
  },
} as const;

/** 200 and 503 of /healthz. */
export const healthAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'words', 'synsets', 'backends'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    words: { type: 'integer' },
    synsets: { type: 'integer' },
    backends: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'kind', 'available', 'state'],
        properties: {
          name: { type: 'string' },
          kind: { type: 'string' },
          available: { type: 'boolean' },
          state: { type: 'string' },
        },
      },
    },
  },
} as const;

/** 200 of /trace: a Chrome trace (streamed). */
export const traceAnswer = {
  type: 'object',
  required: ['traceEvents', 'displayTimeUnit'],
  properties: {
    displayTimeUnit: { type: 'string' },
    traceEvents: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
} as const;

/** Any JSON object (documents whose fields are not fixed: /openapi.json, /debug). */
export const anyObject = { type: 'object', additionalProperties: true } as const;

/** Plain text (the Prometheus exposition). */
export const text = { type: 'string' } as const;
