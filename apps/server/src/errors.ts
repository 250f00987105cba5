// Request errors the routes raise: a status and a message naming the field, sent as { error, field }.

/** A 4xx answer: what is wrong with which field. */
export class RequestError extends Error {
  /** HTTP status (4xx). */
  readonly statusCode: number;
  /** The offending field, e.g. 'word' or 'queries[3].vector'. */
  readonly field: string;

  constructor(statusCode: number, field: string, message: string) {
    super(message);
    this.name = 'RequestError';
    this.statusCode = statusCode;
    this.field = field;
  }
}
