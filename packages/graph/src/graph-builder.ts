// Builds a graph: symbolic inputs, constants (weights) and op nodes from core's op set, plus free views.
// Every node is validated with core's inferOutputs as it is added, so a shape or dtype error names the node.
import {
  assertValidShape,
  DTYPES,
  errorMessage,
  inferOutputs,
  InvalidArgumentError,
  isDType,
  monotonicClock,
  OP_KINDS,
  opInputs,
  type Clock,
  type DType,
  type Engine,
  type Op,
  type RopeMode,
  type Tensor,
  type TensorData,
} from '@tandem/core';
import { GraphValidationError } from './errors.ts';
import { Graph } from './graph.ts';
import { planExecution, type GraphNode } from './plan.ts';
import { rowMajorStrides, type Source, type SymbolicTensor, type ViewStep } from './symbolic.ts';
import { copyOfStep, viewOf } from './views.ts';

/** Options of a GraphBuilder. */
export interface GraphBuilderOptions {
  /** Graph name, shown in reports and in errors about inputs (default 'graph'). */
  readonly name?: string;
  /** Clock for the executor's wall times (default: performance.now); tests pass a manual clock. */
  readonly clock?: Clock;
}

/** Options of one graph input. */
export interface InputOptions {
  /**
   * State carried from run to run, such as a KV cache that each run grows and hands to the next (default false).
   * 'auto' plans it as if it lived on every backend, as it does weights: moving it is paid once, and later runs
   * find it where it was moved, so the plan follows the steady state, not where the state happens to be now.
   */
  readonly carried?: boolean;
}

/** Collects inputs, constants, nodes and outputs; build() freezes them into a runnable Graph. */
export class GraphBuilder {
  /** Graph name. */
  readonly name: string;
  private readonly engine: Engine;
  private readonly clock: Clock;
  private readonly nodes: GraphNode[] = [];
  private readonly inputs = new Map<string, SymbolicTensor>();
  private readonly outputs = new Map<string, SymbolicTensor>();
  private readonly names = new Map<string, string>();
  private readonly ownedConstants: Tensor[] = [];
  private readonly token = {};
  private nextId = 1;
  private built = false;

  constructor(engine: Engine, options: GraphBuilderOptions = {}) {
    this.engine = engine;
    this.name = options.name ?? 'graph';
    this.clock = options.clock ?? monotonicClock;
  }

  /** A value given to each run(): a Tensor of this dtype and shape, or host data for one. */
  input(name: string, dtype: DType, shape: readonly number[], options: InputOptions = {}): SymbolicTensor {
    this.claim(name, 'an input');
    try {
      if (!isDType(dtype))
        throw new InvalidArgumentError(`${name}.dtype`, dtype, `must be one of ${DTYPES.join(', ')}`);
      assertValidShape(`${name}.shape`, shape);
    } catch (error) {
      this.names.delete(name);
      throw new GraphValidationError(name, errorMessage(error), { cause: error });
    }
    const t = this.symbol(name, dtype, shape, { kind: 'input', carried: options.carried ?? false });
    this.inputs.set(name, t);
    return t;
  }

  /** A tensor that stays the same across runs (a weight). The graph never disposes it; it stays resident where it was moved. */
  constant(name: string, tensor: Tensor): SymbolicTensor {
    this.claim(name, 'a constant');
    try {
      this.engine.checkTensor(name, tensor);
    } catch (error) {
      this.names.delete(name);
      throw new GraphValidationError(name, errorMessage(error), { cause: error });
    }
    return this.symbol(name, tensor.dtype, tensor.shape, { kind: 'constant', tensor });
  }

  /** A constant from host data, uploaded once; Graph.dispose() frees it. */
  constantFrom(name: string, data: TensorData, shape: readonly number[], dtype?: DType): SymbolicTensor {
    let tensor: Tensor;
    try {
      tensor = dtype === undefined ? this.engine.tensor(data, shape) : this.engine.tensor(data, shape, dtype);
    } catch (error) {
      throw new GraphValidationError(name, errorMessage(error), { cause: error });
    }
    this.ownedConstants.push(tensor);
    return this.constant(name, tensor);
  }

  /** Adds an op node named `name`; returns its outputs. Throws GraphValidationError naming the node on bad shapes or dtypes. */
  node(name: string, op: Op<SymbolicTensor>): SymbolicTensor[] {
    this.claim(name, 'a node');
    if (typeof op !== 'object' || op === null || !OP_KINDS.includes(op.op)) {
      this.names.delete(name);
      const kind: unknown = typeof op === 'object' && op !== null ? op.op : op;
      throw new GraphValidationError(name, `op = ${String(kind)}: must be one of ${OP_KINDS.join(', ')}`);
    }
    for (const { name: arg, tensor } of opInputs(op)) {
      if (typeof tensor !== 'object' || tensor === null) {
        this.names.delete(name);
        throw new GraphValidationError(name, `${op.op}.${arg} = ${String(tensor)}: must be a tensor of this graph`);
      }
      if (tensor.owner !== this.token)
        throw new GraphValidationError(name, `${op.op}.${arg} (${tensor.name}) belongs to another graph`);
    }
    let specs: ReturnType<typeof inferOutputs>;
    try {
      specs = inferOutputs(op);
    } catch (error) {
      this.names.delete(name);
      throw new GraphValidationError(name, errorMessage(error), { cause: error });
    }
    const index = this.nodes.length;
    const outputs = specs.map((s, i) =>
      this.symbol(specs.length === 1 ? name : `${name}:${i}`, s.dtype, s.shape, { kind: 'op', node: index, output: i }),
    );
    this.nodes.push({ index, name, op, outputs });
    return outputs;
  }

  /** matmul: a [M, K] x b [K, N]. */
  matmul(name: string, a: SymbolicTensor, b: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'matmul', a, b });
  }
  /** quantizedMatmul: x [M, K] f32 times w [N, K] q8_0 / q4_0 (ggml's layout). */
  quantizedMatmul(name: string, x: SymbolicTensor, w: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'quantizedMatmul', x, w });
  }
  /** a + b (b may broadcast over a's leading dimensions). */
  add(name: string, a: SymbolicTensor, b: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'add', a, b });
  }
  /** a * b (b may broadcast). */
  mul(name: string, a: SymbolicTensor, b: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'mul', a, b });
  }
  /** x * factor. */
  scale(name: string, x: SymbolicTensor, factor: number): SymbolicTensor {
    return this.single(name, { op: 'scale', x, factor });
  }
  /** Row-wise softmax, optionally causal. */
  softmax(name: string, x: SymbolicTensor, causal = false): SymbolicTensor {
    return this.single(name, { op: 'softmax', x, causal });
  }
  /** RMSNorm over the last dimension. */
  rmsNorm(name: string, x: SymbolicTensor, weight: SymbolicTensor | undefined, eps = 1e-5): SymbolicTensor {
    return this.single(name, { op: 'rmsNorm', x, weight, eps });
  }
  /** Rotary position embedding on [seq, heads, headDim]. */
  rope(
    name: string,
    x: SymbolicTensor,
    options: { positionOffset: number; base?: number; mode?: RopeMode },
  ): SymbolicTensor {
    return this.single(name, {
      op: 'rope',
      x,
      positionOffset: options.positionOffset,
      base: options.base ?? 10000,
      mode: options.mode ?? 'interleaved',
    });
  }
  /** x * sigmoid(x). */
  silu(name: string, x: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'silu', x });
  }
  /** silu(gate) * up. */
  swiglu(name: string, gate: SymbolicTensor, up: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'swiglu', gate, up });
  }
  /** Attention over q [Sq, H, D], k / v [Sk, Hkv, D]. */
  attention(
    name: string,
    q: SymbolicTensor,
    k: SymbolicTensor,
    v: SymbolicTensor,
    options: { causal?: boolean; scale?: number } = {},
  ): SymbolicTensor {
    return this.single(name, { op: 'attention', q, k, v, causal: options.causal ?? false, scale: options.scale });
  }

  /** a's rows then b's rows along axis 0 (equal trailing shape and dtype), e.g. a KV cache grown on its backend. */
  concat(name: string, a: SymbolicTensor, b: SymbolicTensor): SymbolicTensor {
    return this.single(name, { op: 'concat', a, b });
  }

  /** Same data, new shape (a view: no node, no copy); `name` defaults to `<t>.reshape`. */
  reshape(t: SymbolicTensor, shape: readonly number[], name?: string): SymbolicTensor {
    return this.view(t, { kind: 'reshape', shape }, name);
  }
  /** Reordered dimensions (a view); an op reading it makes the engine gather a contiguous copy once. */
  permute(t: SymbolicTensor, axes: readonly number[], name?: string): SymbolicTensor {
    return this.view(t, { kind: 'permute', axes }, name);
  }
  /** The last two dimensions swapped (a view). */
  transpose(t: SymbolicTensor, name?: string): SymbolicTensor {
    const axes = [...t.shape.keys()];
    const n = axes.length;
    if (n >= 2) [axes[n - 2], axes[n - 1]] = [n - 1, n - 2];
    return this.view(t, { kind: 'permute', axes }, name ?? `${t.name}.transpose`);
  }
  /** Rows [start, end) of the first dimension (a view). */
  slice(t: SymbolicTensor, start: number, end: number, name?: string): SymbolicTensor {
    return this.view(t, { kind: 'slice', start, end }, name);
  }

  /** Marks `t` as an output named `name`; each run hands it to the caller, who owns it. */
  output(name: string, t: SymbolicTensor): void {
    this.assertOpen(name);
    if (this.outputs.has(name)) throw new GraphValidationError(`output ${name}`, 'name already used by another output');
    if (t.owner !== this.token) throw new GraphValidationError(`output ${name}`, `${t.name} belongs to another graph`);
    let root = t;
    while (root.source.kind === 'view') root = root.source.base;
    if (root.source.kind === 'constant')
      throw new GraphValidationError(`output ${name}`, `${t.name} is a constant; read the tensor directly instead`);
    this.outputs.set(name, t);
  }

  /** Plans execution (order, pruning, when each intermediate is freed) and returns the runnable graph. */
  build(): Graph {
    this.assertOpen(this.name);
    if (this.outputs.size === 0)
      throw new GraphValidationError(this.name, 'has no outputs (call output() before build())');
    this.built = true;
    const plan = planExecution(this.nodes, [...this.outputs.values()]);
    return new Graph({
      engine: this.engine,
      name: this.name,
      clock: this.clock,
      inputs: this.inputs,
      outputs: this.outputs,
      plan,
      ownedConstants: this.ownedConstants,
    });
  }

  private single(name: string, op: Op<SymbolicTensor>): SymbolicTensor {
    const [out] = this.node(name, op);
    if (out === undefined) throw new GraphValidationError(name, `${op.op} has no output`);
    return out;
  }

  private view(base: SymbolicTensor, step: ViewStep, name = `${base.name}.${step.kind}`): SymbolicTensor {
    this.assertOpen(name);
    if (base.owner !== this.token) throw new GraphValidationError(name, `${base.name} belongs to another graph`);
    let result: ReturnType<typeof viewOf>;
    try {
      result = viewOf(base, step);
    } catch (error) {
      throw new GraphValidationError(name, errorMessage(error), { cause: error });
    }
    return {
      id: this.nextId++,
      name,
      dtype: base.dtype,
      shape: result.shape,
      source: { kind: 'view', base, step: copyOfStep(step) },
      root: base.root,
      layout: result.layout,
      owner: this.token,
    };
  }

  private symbol(name: string, dtype: DType, shape: readonly number[], source: Source): SymbolicTensor {
    const id = this.nextId++;
    const elements = shape.reduce((n, d) => n * d, 1);
    return {
      id,
      name,
      dtype,
      shape: [...shape],
      source,
      root: id,
      layout: { strides: rowMajorStrides(shape), offset: 0, storageElements: elements },
      owner: this.token,
    };
  }

  private claim(name: string, what: string): void {
    this.assertOpen(name);
    if (name.length === 0) throw new GraphValidationError('(unnamed)', `${what} needs a non-empty name`);
    const previous = this.names.get(name);
    if (previous !== undefined) throw new GraphValidationError(name, `name already used by ${previous}`);
    this.names.set(name, what);
  }

  private assertOpen(name: string): void {
    if (this.built)
      throw new GraphValidationError(name, `graph ${this.name} was already built; start a new GraphBuilder`);
  }
}
