// Runs a synchronous section of WebGPU calls inside validation / out-of-memory / internal error scopes, then
// waits for the scopes and the section's completion promise, racing device loss. Every failure comes out as
// a BackendError subclass: DeviceLostError, OutOfMemoryError, or BackendError('GPU_VALIDATION' | ...).
// Scopes are pushed and popped within one synchronous stretch, so concurrent ops never see each other's scopes.
import type { BackendError } from '@tandem/core';
import type { DeviceContext } from './device-context.ts';
import { asBackendError, deviceLost, fromGpuError } from './gpu-errors.ts';

/** What a guarded section is doing, for error messages. */
export interface GuardLabel {
  /** E.g. 'matmul', 'upload f32[64, 64]'. */
  readonly what: string;
  /** Bytes the section allocates (reported by OutOfMemoryError). */
  readonly requestedBytes: number;
}

type Outcome<R> =
  | { readonly kind: 'settled'; readonly value: R }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'lost'; readonly reason: string };

/** How long a failed GPU promise waits for a device-lost notice that may arrive just behind it, ms. */
const LOSS_GRACE_MS = 50;

/**
 * Calls `section` inside error scopes, then awaits `completion(value)` (e.g. mapAsync, onSubmittedWorkDone)
 * with the scopes. Resolves with the section's value, or rejects with a BackendError; `cleanup` runs with
 * the value (or undefined) when anything failed, before the rejection.
 */
export async function guarded<T>(
  ctx: DeviceContext,
  label: GuardLabel,
  section: () => T,
  completion: (value: T) => Promise<unknown> | undefined,
  cleanup: (value: T | undefined) => void = () => {},
): Promise<T> {
  if (ctx.lostReason !== undefined) throw deviceLost(label.what, ctx.lostReason);
  const device = ctx.device;
  device.pushErrorScope('internal');
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };
  try {
    result = { ok: true, value: section() };
  } catch (error) {
    result = { ok: false, error };
  }
  const sectionResult = result;
  const waited = ctx.waiter.wait(() =>
    Promise.all([
      device.popErrorScope(),
      device.popErrorScope(),
      device.popErrorScope(),
      sectionResult.ok ? completion(sectionResult.value) : undefined,
    ]),
  );
  const outcome = await raceLoss(ctx, waited);
  const failure = await failureOf(ctx, label, outcome, sectionResult);
  if (failure !== undefined || !sectionResult.ok) {
    cleanup(sectionResult.ok ? sectionResult.value : undefined);
    throw failure ?? asBackendError(sectionResult.ok ? undefined : sectionResult.error, label.what);
  }
  return sectionResult.value;
}

async function failureOf(
  ctx: DeviceContext,
  label: GuardLabel,
  outcome: Outcome<readonly [GPUError | null, GPUError | null, GPUError | null, unknown]>,
  section: { readonly ok: boolean; readonly error?: unknown },
): Promise<BackendError | undefined> {
  if (outcome.kind === 'lost') return deviceLost(label.what, outcome.reason);
  if (outcome.kind === 'failed') {
    const reason = ctx.lostReason ?? (await lossWithin(ctx, LOSS_GRACE_MS));
    if (reason !== undefined) return deviceLost(label.what, reason);
    return asBackendError(outcome.error, label.what);
  }
  if (ctx.lostReason !== undefined) return deviceLost(label.what, ctx.lostReason);
  const [validation, memory, internal] = outcome.value;
  const scoped = memory ?? validation ?? internal ?? ctx.takeUncapturedErrors()[0];
  if (scoped !== undefined && scoped !== null) return fromGpuError(scoped, label.what, label.requestedBytes);
  if (!section.ok) return asBackendError(section.error, label.what);
  return undefined;
}

/** Settles with the promise's value or error, or with the loss reason if the device is lost first. */
export async function raceLoss<R>(ctx: DeviceContext, promise: Promise<R>): Promise<Outcome<R>> {
  return Promise.race([
    promise.then(
      (value): Outcome<R> => ({ kind: 'settled', value }),
      (error: unknown): Outcome<R> => ({ kind: 'failed', error }),
    ),
    ctx.lost.then((reason): Outcome<R> => ({ kind: 'lost', reason })),
  ]);
}

async function lossWithin(ctx: DeviceContext, ms: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const reason = await Promise.race([ctx.lost, timeout]);
  clearTimeout(timer);
  return reason;
}
