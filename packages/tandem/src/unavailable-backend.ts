// A backend that could not be built (its package is not installed, or forceCpu kept it from starting): registered
// anyway, so `engine.backends()` lists it with the reason and how to enable it, instead of leaving it out silently.
import {
  BackendError,
  type BackendKind,
  type CapableBackend,
  type DeviceBuffer,
  type InitResult,
  type RunResult,
} from '@tandem/core';

/** Stands in for a backend that is not there; init() fails with the reason, everything else refuses. */
export class UnavailableBackend implements CapableBackend {
  readonly name: string;
  readonly kind: BackendKind;
  readonly priority = Number.MAX_SAFE_INTEGER;
  readonly capabilities = [];
  private readonly reason: string;

  constructor(name: string, kind: BackendKind, reason: string) {
    this.name = name;
    this.kind = kind;
    this.reason = reason;
  }

  async init(): Promise<InitResult> {
    return { ok: false, reason: this.reason };
  }

  describe(): { name: string; features: readonly string[] } {
    return { name: `${this.name} (unavailable)`, features: [] };
  }

  async upload(): Promise<DeviceBuffer> {
    throw this.refusal();
  }

  async download(): Promise<Uint8Array> {
    throw this.refusal();
  }

  free(): void {}

  async run(): Promise<RunResult> {
    throw this.refusal();
  }

  health(): { state: 'unavailable'; reason: string } {
    return { state: 'unavailable', reason: this.reason };
  }

  async dispose(): Promise<void> {}

  private refusal(): BackendError {
    return new BackendError('UNAVAILABLE', this.name, this.reason);
  }
}
