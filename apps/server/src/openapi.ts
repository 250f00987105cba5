// The OpenAPI 3.1 document of the API, made from the routes' own schemas (route-schemas.ts) as fastify registers
// them, so it cannot drift from what is validated and serialised. OpenAPI 3.1's schema objects are JSON Schema, so
// the schemas go in as they are; fastify's status keys ('4xx') become OpenAPI's ('4XX'). Routes without a schema
// (the demo's static files, HEAD) are left out.

/** What the document needs of a route. */
export interface DocumentedRoute {
  /** HTTP method (upper case). */
  readonly method: string;
  /** Path as registered. */
  readonly url: string;
  /** The route's schema, when it has one. */
  readonly schema: unknown;
}

/** An OpenAPI 3.1 document (the parts written here). */
export interface OpenApiDocument {
  /** Version of the OpenAPI specification. */
  readonly openapi: '3.1.0';
  /** Title and version of the API. */
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  /** Path -> method -> operation. */
  readonly paths: Record<string, Record<string, Record<string, unknown>>>;
}

/** `value` as a plain object, or undefined. */
function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value))
    : undefined;
}

/** An OpenAPI response object from fastify's response entry ({ content: { type: { schema } } } or a bare schema). */
function responseObject(status: string, entry: unknown): Record<string, unknown> {
  const content = record(record(entry)?.['content']);
  const description = status.startsWith('2') ? 'Success' : 'A problem (RFC 9457)';
  if (content === undefined) return { description, content: { 'application/json': { schema: entry } } };
  return { description, content };
}

/** The document for `routes`. */
export function openApiDocument(routes: readonly DocumentedRoute[], info: OpenApiDocument['info']): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const schema = record(route.schema);
    if (schema === undefined || route.method === 'HEAD') continue;
    const operation: Record<string, unknown> = {};
    if (typeof schema['summary'] === 'string') operation['summary'] = schema['summary'];
    if (typeof schema['description'] === 'string') operation['description'] = schema['description'];
    if (schema['body'] !== undefined)
      operation['requestBody'] = { required: true, content: { 'application/json': { schema: schema['body'] } } };
    const responses: Record<string, unknown> = {};
    for (const [status, entry] of Object.entries(record(schema['response']) ?? {}))
      responses[status.toUpperCase()] = responseObject(status, entry);
    operation['responses'] = responses;
    paths[route.url] = { ...paths[route.url], [route.method.toLowerCase()]: operation };
  }
  return { openapi: '3.1.0', info, paths };
}
