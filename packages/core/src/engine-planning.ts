// The engine's planning: what each backend would cost for a call (capability, health, memory, transfers, read-back),
// the scheduler's plan from that, and the decision cache that lets identical calls reuse a plan.
import { checkCapabilities } from './capability.ts';
import { byteLengthOf, DTYPES } from './dtype.ts';
import type { BackendLifecycle } from './engine-backends.ts';
import type { MemoryNeed } from './engine-options.ts';
import { RECOVERING_TEXT } from './engine-backends.ts';
import { opMemory, unplannable } from './limits.ts';
import type { OpWork } from './op-definition.ts';
import { OP_KINDS, type Op, type OpKind, type TensorSpec } from './ops.ts';
import type { Residency } from './residency.ts';
import type { CostModel } from './scheduler/cost-model.ts';
import type { CachedDecision, DecisionCache } from './scheduler/decision-cache.ts';
import { opKeyOf } from './scheduler/op-key.ts';
import type { ReadBackRates } from './scheduler/read-back.ts';
import { rooflineMs } from './scheduler/roofline.ts';
import type { Scheduler, ScheduleRequest } from './scheduler/scheduler.ts';
import type { Candidate, SchedulePlan, Strategy } from './scheduler/selection.ts';
import type { Tensor } from './tensor.ts';

/** A call's inputs with their names, as run() and explain() checked them. */
export type CallInputs = ReadonlyArray<{ name: string; tensor: Tensor }>;

/** What a CallPlanner works with. */
export interface CallPlannerOptions {
  /** The backends' states. */
  readonly lifecycle: BackendLifecycle;
  /** Plans from candidates. */
  readonly scheduler: Scheduler;
  /** What the engine learned of each op's cost (its decision counter keys plan reuse). */
  readonly costModel: CostModel;
  /** Plans reused by identical calls. */
  readonly decisions: DecisionCache;
  /** Where tensors live and what copies cost. */
  readonly residency: Residency;
  /** How often each op's outputs are read back to the host. */
  readonly readBack: ReadBackRates;
}

/** The call a plan is made for. */
export interface PlanningCall {
  /** The op, seen as specs. */
  readonly spec: Op<TensorSpec>;
  /** Its inputs. */
  readonly inputs: CallInputs;
  /** Its work. */
  readonly work: OpWork;
  /** Its outputs' specs. */
  readonly outputs: readonly TensorSpec[];
  /** The strategy it runs under. */
  readonly strategy: Strategy;
  /** Its call kind (undefined: not cacheable) and residency signature, from kindOf and residencySignature. */
  readonly kind: number | undefined;
  /** Where its inputs live, as one number. */
  readonly residency: number;
  /** Whether the plan is for a run (it commits the scheduler's state and may be cached) or only explained. */
  readonly commit: boolean;
}

/** A plan made afresh and its call's cost model key. */
export interface FreshPlan {
  /** The plan. */
  readonly plan: SchedulePlan;
  /** The cost model's key of the call. */
  readonly opKey: string;
}

/** Plans calls; see README's "How auto decides". */
export class CallPlanner {
  private readonly lifecycle: BackendLifecycle;
  private readonly scheduler: Scheduler;
  private readonly costModel: CostModel;
  private readonly decisions: DecisionCache;
  private readonly residency: Residency;
  private readonly readBack: ReadBackRates;
  /** Backend name -> bit index, for call kinds and residency signatures. */
  private readonly backendIndex = new Map<string, number>();
  /** The cost model's decision count of an op key (bound once: the decision cache calls it on every lookup). */
  private readonly decisionCountOf: (opKey: string) => number;

  constructor(options: CallPlannerOptions) {
    this.lifecycle = options.lifecycle;
    this.scheduler = options.scheduler;
    this.costModel = options.costModel;
    this.decisions = options.decisions;
    this.residency = options.residency;
    this.readBack = options.readBack;
    for (const name of this.lifecycle.states.keys()) this.backendIndex.set(name, this.backendIndex.size);
    this.decisionCountOf = this.costModel.decisionCount.bind(this.costModel);
  }

  /** Op, dtypes and strategy as one number for the decision cache (undefined: don't cache this call). */
  kindOf(op: OpKind, inputs: CallInputs, strategy: Strategy): number | undefined {
    let strategyIndex: number;
    if (strategy === 'auto') strategyIndex = 0;
    else if (strategy === 'gpu-preferred') strategyIndex = 1;
    else if (strategy === 'cpu-preferred') strategyIndex = 2;
    else {
      const index = this.backendIndex.get(strategy.only);
      if (index === undefined) return undefined;
      strategyIndex = 3 + index;
    }
    // Residency signatures are exact for up to 6 backends and 6 inputs (8 bits each, < 2^53).
    if (this.backendIndex.size > 6 || inputs.length > 6) return undefined;
    const first = inputs[0]?.tensor.dtype ?? 'f32';
    // A second dtype (a quantized weight's format) is part of the kind, as it is of the cost model's key (opKeyOf).
    const other = inputs.find(({ tensor }) => tensor.dtype !== first)?.tensor.dtype;
    const otherIndex = other === undefined ? 0 : 1 + DTYPES.indexOf(other);
    return ((OP_KINDS.indexOf(op) * 8 + DTYPES.indexOf(first)) * 16 + otherIndex) * 64 + strategyIndex;
  }

  /** Where every input lives (host copy, replicas, or an ungathered view), as one number. */
  residencySignature(inputs: CallInputs): number {
    let signature = 0;
    for (const { tensor } of inputs) {
      const storage = tensor.isContiguous ? tensor.storage : tensor.contiguousCache;
      let code = 1;
      if (storage !== undefined) {
        code = storage.host === undefined ? 2 : 3;
        for (const name of storage.replicas.keys()) code |= 4 << (this.backendIndex.get(name) ?? 0);
      }
      signature = signature * 256 + code;
    }
    return signature;
  }

  /** A cached plan still valid for this call (its backend must still be healthy), or undefined. */
  reusable(work: OpWork, kind: number, residency: number): CachedDecision | undefined {
    const entry = this.decisions.lookup(work, kind, residency, this.decisionCountOf);
    if (entry === undefined) return undefined;
    const health = this.lifecycle.states.get(entry.plan.selection.backend)?.backend.health();
    if (health === undefined || health.state === 'unhealthy' || health.state === 'unavailable') {
      this.decisions.clear();
      return undefined;
    }
    return entry;
  }

  /** A plan made afresh; a run's plan is kept for reuse when the scheduler says it may be. Throws when none is possible. */
  plan(call: PlanningCall): FreshPlan {
    const { request, awaitingRecovery } = this.requestFor(call);
    const planned = this.scheduler.plan(request, call.strategy, call.commit);
    if (!planned.ok) throw unplannable(call.spec, planned.skipped, planned.shortfall);
    // A backend waiting to recover is looked at again on every call (that is what starts its re-init): not cached.
    if (call.commit && planned.cacheable && !awaitingRecovery && call.kind !== undefined) {
      // The drift check compares run times: the plan's estimate less the transfers it charged the chosen backend.
      const selection = planned.plan.selection;
      const transferMs = request.candidates.find((c) => c.name === selection.backend)?.transferMs ?? 0;
      const opKey = request.opKey;
      this.decisions.store({
        work: call.work,
        kind: call.kind,
        residency: call.residency,
        opKey,
        plan: planned.plan,
        decisionCount: this.costModel.decisionCount(opKey),
        runEstimateMs: selection.estimatedMs - transferMs,
      });
    }
    return { plan: planned.plan, opKey: request.opKey };
  }

  /** What the call would allocate on each backend that can take it (explain()'s memory). */
  memoryNeeds(call: Pick<PlanningCall, 'spec' | 'inputs' | 'work' | 'outputs'>): Record<string, MemoryNeed> {
    const outputBytes = opMemory(call.spec, call.outputs).outputBytes;
    const needs: Record<string, MemoryNeed> = {};
    for (const c of this.requestFor(call).request.candidates) {
      const backend = this.lifecycle.states.get(c.name)?.backend;
      if (c.unusable !== undefined || backend === undefined) continue;
      const scratchBytes = backend.scratchBytes?.(call.spec, call.outputs) ?? 0;
      needs[c.name] = {
        inputBytes: c.requiredBytes - outputBytes - scratchBytes,
        outputBytes,
        scratchBytes,
        totalBytes: c.requiredBytes,
        availableBytes: c.availableBytes,
      };
    }
    return needs;
  }

  /** Every backend as a candidate for the call: unusable with its reason, or priced (compute, copies, memory). */
  private requestFor(call: Pick<PlanningCall, 'spec' | 'inputs' | 'work' | 'outputs'>): {
    request: ScheduleRequest;
    awaitingRecovery: boolean;
  } {
    const { spec, inputs, work, outputs } = call;
    const opKey = opKeyOf(spec, inputs);
    const outBytes = opMemory(spec, outputs).outputBytes;
    const readBackRate = this.readBack.rate(opKey);
    const candidates: Candidate[] = [];
    let awaitingRecovery = false;
    for (const s of this.lifecycle.states.values()) {
      const b = s.backend;
      let unusable: string | undefined;
      if (s.recovering) {
        // Mid re-init a backend can look healthy before init() has finished; work sent now could be lost to it.
        unusable = RECOVERING_TEXT;
        awaitingRecovery = true;
      } else if (!s.available) {
        unusable = s.unusableText;
        if (s.wasReady) {
          awaitingRecovery = true;
          this.lifecycle.maybeRecover(s);
        }
      } else {
        const health = b.health();
        if (health.state === 'unhealthy' || health.state === 'unavailable') {
          unusable = `${health.state}: ${health.reason}`;
          awaitingRecovery = true;
          this.lifecycle.maybeRecover(s);
        } else {
          const verdict =
            b.supportsOp === undefined ? checkCapabilities(b.capabilities, spec) : b.supportsOp(spec, outputs);
          if (!verdict.ok) unusable = verdict.reason;
        }
      }
      if (unusable !== undefined) {
        candidates.push({
          name: b.name,
          kind: b.kind,
          priority: b.priority,
          fallbackOnly: b.fallbackOnly ?? false,
          unusable,
          priorMs: Infinity,
          transferMs: 0,
          requiredBytes: 0,
          availableBytes: undefined,
        });
        continue;
      }
      let transferMs = 0;
      let missing = 0;
      for (const { tensor } of inputs) {
        const storage = tensor.isContiguous ? tensor.storage : tensor.contiguousCache;
        if (storage === undefined) {
          const bytes = byteLengthOf(tensor.dtype, tensor.size);
          transferMs += bytes / s.profile.transferBytesPerMs;
          missing += bytes;
        } else {
          transferMs += this.residency.estimateMs(storage, b.name);
          missing += this.residency.missingBytes(storage, b.name);
        }
      }
      // Outputs this op's callers read back are copied to the host from wherever they were computed.
      if (readBackRate > 0) transferMs += readBackRate * this.residency.downloadEstimateMs(outBytes, b.name);
      const priorMs = b.estimateCost?.(spec, work) ?? rooflineMs(work, s.profile);
      const availableBytes = b.availableMemory !== undefined ? b.availableMemory() : b.describe().availableMemoryBytes;
      candidates.push({
        name: b.name,
        kind: b.kind,
        priority: b.priority,
        fallbackOnly: b.fallbackOnly ?? false,
        software: s.software,
        compilesOnFirstRun: b.compilesOnFirstRun === true,
        unusable,
        priorMs,
        transferMs,
        requiredBytes: missing + outBytes + (b.scratchBytes?.(spec, outputs) ?? 0),
        availableBytes,
      });
    }
    return { request: { op: spec.op, opKey, work, candidates }, awaitingRecovery };
  }
}
