// Errors of @tandem/graph. Each names the node, view, input or output it is about, so a message such as
// `layer0.attn.k_proj: matmul.b.shape[0] = 4: must equal a.shape[1] (3)` points at the line that built it.
import { errorMessage, TandemError } from '@tandem/core';

/** A graph that cannot be built: a node's shapes or dtypes, a view, a duplicate name, a bad output. */
export class GraphValidationError extends TandemError {
  override readonly name: string = 'GraphValidationError';
  /** The node, view, input or output the problem is in. */
  readonly node: string;
  constructor(node: string, detail: string, options?: { cause?: unknown }) {
    super('GRAPH_INVALID', `${node}: ${detail}`, options);
    this.node = node;
  }
}

/** A run that failed: a missing or mismatched input, or a node on which every capable backend failed. */
export class GraphRunError extends TandemError {
  override readonly name: string = 'GraphRunError';
  /** The node or input that failed. */
  readonly node: string;
  constructor(node: string, cause: unknown) {
    super('GRAPH_RUN_FAILED', `${node}: ${errorMessage(cause)}`, { cause });
    this.node = node;
  }
}
