// Request types inferred from the JSON schemas (a Fastify type provider), so a route's body type is never restated
// by hand. FromSchema covers the subset schemas.ts uses: objects with properties, `required` and `oneOf` of
// `required` lists, strings, numbers, integers, booleans, arrays and enums. A property with a `default` is present
// after validation (ajv fills defaults), so it is not optional. Anything else is `unknown`.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/** Flattens an intersection into one object type (readable in hovers; optionality as in every part). */
type Flat<T> = { [K in keyof T]: T[K] };

/** Keys a validated object always has: listed in `required`, or given a `default`. */
type PresentKeys<S, P> =
  | (S extends { readonly required: readonly (infer R)[] } ? R : never)
  | { [K in keyof P]: P[K] extends { readonly default: unknown } ? K : never }[keyof P];

/** The object of `properties` P, present keys required and the others optional. */
type Properties<S, P> = { [K in keyof P as K extends PresentKeys<S, P> ? K : never]: FromSchema<P[K]> } & {
  [K in keyof P as K extends PresentKeys<S, P> ? never : K]?: FromSchema<P[K]>;
};

/** One alternative of a `oneOf` of `required` lists: those keys made required. */
type Alternative<S, P, O> = O extends { readonly required: readonly (infer R)[] }
  ? Flat<Properties<S, P> & { [K in R & keyof P]: FromSchema<P[K]> }>
  : never;

/** The TypeScript type of a value that passed JSON schema `S`. */
export type FromSchema<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly type: 'string' }
    ? string
    : S extends { readonly type: 'integer' | 'number' }
      ? number
      : S extends { readonly type: 'boolean' }
        ? boolean
        : S extends { readonly type: 'array'; readonly items: infer I }
          ? FromSchema<I>[]
          : S extends { readonly type: 'object'; readonly properties: infer P }
            ? S extends { readonly oneOf: readonly (infer O)[] }
              ? Alternative<S, P, O>
              : Flat<Properties<S, P>>
            : unknown;

/** The provider: `app.withTypeProvider<SchemaTypes>()` types request.body (and params, query) from the route's schema. */
export interface SchemaTypes extends FastifyTypeProvider {
  /** The validated value's type. */
  readonly validator: FromSchema<this['schema']>;
  /** Answers are not typed from their schemas (handlers return streams and objects alike). */
  readonly serializer: unknown;
}

/** The server's app: fastify with request types from the schemas. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  SchemaTypes
>;
