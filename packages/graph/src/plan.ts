// Build-time planning: which nodes run (those an output depends on), in what order (insertion order, which is
// topological because a node can only read values built before it), and when each intermediate is freed
// (right after the last step that reads it or any view of it: its reference count drops to zero there).
import { opInputs, type Op } from '@tandem/core';
import type { SymbolicTensor } from './symbolic.ts';

/** A node of a built graph: one op of the core op set over symbolic tensors. */
export interface GraphNode {
  /** Position in the builder (insertion order). */
  readonly index: number;
  /** Unique name: the label in telemetry and the Chrome trace, and the prefix of its errors. */
  readonly name: string;
  /** The op, over symbolic tensors. */
  readonly op: Op<SymbolicTensor>;
  /** Its outputs (topK has two). */
  readonly outputs: readonly SymbolicTensor[];
}

/** What the executor does, decided once at build. */
export interface ExecutionPlan {
  /** Nodes to run, in topological order. */
  readonly steps: readonly GraphNode[];
  /** Per step: root value ids whose last reader is that step (freed after it unless held by an output). */
  readonly releaseAfter: readonly (readonly number[])[];
  /** How many steps read each root value (its reference count at the start of a run). */
  readonly readers: ReadonlyMap<number, number>;
  /** Root value ids that outputs hold: never freed by the executor. */
  readonly pinned: ReadonlySet<number>;
  /** Names of nodes dropped because no output depends on them. */
  readonly pruned: readonly string[];
}

/** The root (storage-owning) value of a symbolic tensor. */
export function rootOf(t: SymbolicTensor): SymbolicTensor {
  let current = t;
  while (current.source.kind === 'view') current = current.source.base;
  return current;
}

/** Plans a graph: prunes nodes no output needs, orders the rest, and computes when each value is last read. */
export function planExecution(nodes: readonly GraphNode[], outputs: readonly SymbolicTensor[]): ExecutionPlan {
  const needed = new Set<number>();
  const markProducer = (t: SymbolicTensor): void => {
    const root = rootOf(t);
    if (root.source.kind === 'op') needed.add(root.source.node);
  };
  outputs.forEach(markProducer);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i];
    if (node !== undefined && needed.has(i)) for (const { tensor } of opInputs(node.op)) markProducer(tensor);
  }
  const steps = nodes.filter((n) => needed.has(n.index));
  const lastRead = new Map<number, number>();
  const readers = new Map<number, number>();
  steps.forEach((node, step) => {
    const roots = new Set(opInputs(node.op).map(({ tensor }) => rootOf(tensor).id));
    for (const id of roots) {
      lastRead.set(id, step);
      readers.set(id, (readers.get(id) ?? 0) + 1);
    }
    for (const out of node.outputs) if (!lastRead.has(out.id)) lastRead.set(out.id, step); // an unread output dies at once
  });
  const pinned = new Set(outputs.map((t) => rootOf(t).id));
  const releaseAfter = steps.map((): number[] => []);
  for (const [id, step] of lastRead) if (!pinned.has(id)) releaseAfter[step]?.push(id);
  return { steps, releaseAfter, readers, pinned, pruned: nodes.filter((n) => !needed.has(n.index)).map((n) => n.name) };
}
