// JSON schemas of the API's request bodies: fastify validates every request against them (ajv) and answers
// 400 with a message naming the field (e.g. "body/k must be <= 100"). Limits are part of the schema.

/** Most results one query may ask for. */
export const MAX_K = 100;
/** Most queries in one /api/batch request. */
export const MAX_BATCH = 256;
/** Most hops of spreading activation. */
export const MAX_HOPS = 10;

const word = { type: 'string', minLength: 1, maxLength: 64 } as const;
const k = { type: 'integer', minimum: 1, maximum: MAX_K, default: 10 } as const;
/** A raw query vector (its length is checked against the data's dimension by the route). */
const vector = { type: 'array', minItems: 1, maxItems: 1024, items: { type: 'number' } } as const;
const query = {
  type: 'object',
  additionalProperties: false,
  properties: { word, vector },
  oneOf: [{ required: ['word'] }, { required: ['vector'] }],
} as const;

/** POST /api/nearest */
export const nearestBody = {
  type: 'object',
  additionalProperties: false,
  properties: { word, vector, k, method: { type: 'string', enum: ['brute', 'hnsw'], default: 'brute' } },
  oneOf: [{ required: ['word'] }, { required: ['vector'] }],
} as const;

/** POST /api/analogy: a - b + c */
export const analogyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['a', 'b', 'c'],
  properties: { a: word, b: word, c: word, k },
} as const;

/** POST /api/batch */
export const batchBody = {
  type: 'object',
  additionalProperties: false,
  required: ['queries'],
  properties: { queries: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: query }, k },
} as const;

/** POST /api/spread */
export const spreadBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    word,
    synset: { type: 'string', pattern: '^[nvar]:[0-9]{8}$' },
    decay: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.7 },
    threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.01 },
    maxHops: { type: 'integer', minimum: 1, maximum: MAX_HOPS, default: 3 },
    k: { type: 'integer', minimum: 1, maximum: MAX_K, default: 20 },
  },
  oneOf: [{ required: ['word'] }, { required: ['synset'] }],
} as const;
