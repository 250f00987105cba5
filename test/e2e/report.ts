// What the conformance page sends back to Node: per backend, each case's outputs (bytes as base64) or why it
// did not run, plus a checksum of each input so Node can prove it rebuilt the same seeded inputs.
// Shared by the page (browser) and the specs (Node): no DOM, no Node APIs.
import { DTYPES, opInputs, type DType, type Op } from '@tandem/core';
import type { HostTensor } from '@tandem/reference';
import { CASES, type ConformanceCase } from '../conformance/cases.ts';

/**
 * The one case the reference backend runs in the page: plumbing (upload, run and download in the browser). Node's
 * check compares with @tandem/reference, the reference's own kernels, so more cases would compare it with itself.
 */
export const REFERENCE_PLUMBING_CASE = 'matmul f32 7x13x5';

/** The cases `backend` runs in the page: every case, or the reference's plumbing case. */
export function casesFor(backend: string): readonly ConformanceCase[] {
  return backend === 'reference' ? CASES.filter((c) => c.name === REFERENCE_PLUMBING_CASE) : CASES;
}

/** A tensor's bytes in JSON. */
export interface WireTensor {
  /** Element type. */
  readonly dtype: DType;
  /** Dimensions. */
  readonly shape: readonly number[];
  /** The bytes, base64. */
  readonly base64: string;
}

/** One case on one backend. */
export type CaseOutcome =
  | {
      /** Case name (seeds its inputs). */
      readonly name: string;
      /** It ran. */
      readonly status: 'ran';
      /** FNV-1a of each input's bytes, in opInputs order. */
      readonly inputChecksums: readonly number[];
      /** Every output, in order. */
      readonly outputs: readonly WireTensor[];
    }
  | {
      /** Case name. */
      readonly name: string;
      /** 'unsupported': the backend refused it up front; 'failed': it threw. */
      readonly status: 'unsupported' | 'failed';
      /** Why. */
      readonly reason: string;
    };

/** Every case on one backend. */
export interface BackendRun {
  /** Backend name. */
  readonly backend: string;
  /** describe().name. */
  readonly device: string;
  /** Wall time of all cases, ms. */
  readonly ms: number;
  /** One outcome per case of casesFor(backend), in CASES order. */
  readonly cases: readonly CaseOutcome[];
}

/** Everything the page reports. */
export interface PageReport {
  /** navigator.userAgent. */
  readonly userAgent: string;
  /** Whether WebGPU ran, and its adapter or why it could not. */
  readonly webgpu: { readonly available: boolean; readonly detail: string };
  /** Backends that could not start in this page, and why. */
  readonly unavailable: ReadonlyArray<{ readonly backend: string; readonly reason: string }>;
  /** One run per backend that initialised: WebGPU, WASM, the reference (its plumbing case only), in that order. */
  readonly runs: readonly BackendRun[];
  /** Set when the page itself failed. */
  readonly error: string | undefined;
}

const BASE64_CHUNK = 0x8000;

/** Bytes -> base64 (btoa exists in browsers and in Node >= 16). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += BASE64_CHUNK)
    binary += String.fromCharCode(...bytes.subarray(i, i + BASE64_CHUNK));
  return btoa(binary);
}

/** base64 -> bytes. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A host tensor in JSON. */
export function encodeTensor(t: HostTensor): WireTensor {
  return { dtype: t.dtype, shape: [...t.shape], base64: toBase64(t.data) };
}

/** A JSON tensor back as a host tensor. */
export function decodeTensor(t: WireTensor): HostTensor {
  return { dtype: t.dtype, shape: [...t.shape], data: fromBase64(t.base64) };
}

/** FNV-1a of each input's bytes, in opInputs order. */
export function inputChecksums(op: Op<HostTensor>): number[] {
  return opInputs(op).map(({ tensor }) => {
    let hash = 0x811c9dc5;
    for (const byte of tensor.data) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return hash;
  });
}

// ---- checks of what arrives in Node (it is `unknown` until checked) ----

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number');
}

function isWireTensor(value: unknown): value is WireTensor {
  return (
    isRecord(value) &&
    DTYPES.some((d) => d === value['dtype']) &&
    isNumberArray(value['shape']) &&
    typeof value['base64'] === 'string'
  );
}

function isCaseOutcome(value: unknown): value is CaseOutcome {
  if (!isRecord(value) || typeof value['name'] !== 'string') return false;
  const status = value['status'];
  if (status === 'ran')
    return (
      isNumberArray(value['inputChecksums']) && Array.isArray(value['outputs']) && value['outputs'].every(isWireTensor)
    );
  return (status === 'unsupported' || status === 'failed') && typeof value['reason'] === 'string';
}

function isBackendRun(value: unknown): value is BackendRun {
  return (
    isRecord(value) &&
    typeof value['backend'] === 'string' &&
    typeof value['device'] === 'string' &&
    typeof value['ms'] === 'number' &&
    Array.isArray(value['cases']) &&
    value['cases'].every(isCaseOutcome)
  );
}

/** Whether a value is a well-formed PageReport. */
export function isPageReport(value: unknown): value is PageReport {
  if (!isRecord(value) || typeof value['userAgent'] !== 'string') return false;
  const webgpu = value['webgpu'];
  const error = value['error'];
  return (
    isRecord(webgpu) &&
    typeof webgpu['available'] === 'boolean' &&
    typeof webgpu['detail'] === 'string' &&
    Array.isArray(value['unavailable']) &&
    value['unavailable'].every(
      (u) => isRecord(u) && typeof u['backend'] === 'string' && typeof u['reason'] === 'string',
    ) &&
    Array.isArray(value['runs']) &&
    value['runs'].every(isBackendRun) &&
    (error === undefined || typeof error === 'string')
  );
}
