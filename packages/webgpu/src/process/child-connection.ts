// One GPU process and its IPC channel: requests by id, replies checked and matched to them, and the end of the
// process (crash, kill, abort inside dawn.node, or dispose) turned into a DeviceLostError for every request
// still pending, naming the exit code or signal and the last thing the child wrote to stderr.
import { fork, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { BackendError, DeviceLostError, errorMessage, type BackendHealth } from '@tandem/core';
import { BACKEND_NAME } from '../gpu-errors.ts';
import type { ChildLaunch } from './launch.ts';
import type { GpuRequest, GpuResults, RepliedRequestType } from './protocol.ts';
import { fromWireError } from './wire-errors.ts';
import { isGpuReply, RESULT_GUARDS } from './wire-guards.ts';

/** The fields of a request other than its type and id. */
export type RequestBody<K extends RepliedRequestType> = Omit<Extract<GpuRequest, { type: K }>, 'type' | 'id'>;

/** What the connection reports to its owner. */
export interface ConnectionListener {
  /** Health the child reported with a reply. */
  onHealth(health: BackendHealth): void;
  /** The child is gone; `description` says how (exit code or signal, last stderr). */
  onExit(description: string): void;
}

/** Options of GpuProcessConnection.start. */
export interface ConnectionOptions {
  /** 'forward' copies the child's stderr to this process's stderr (prefixed); 'capture' only keeps its tail. */
  readonly stderr: 'forward' | 'capture';
  /** Environment of the child (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

interface Pending {
  /** Request type. */
  readonly type: RepliedRequestType;
  /** What the request was, for errors. */
  readonly what: string;
  /** Checks and delivers a result. */
  readonly settle: (result: unknown) => void;
  /** Fails the request. */
  readonly reject: (error: Error) => void;
}

/** Characters of the child's stderr kept for exit messages. */
const STDERR_TAIL_CHARS = 4096;
/** How long after 'exit' the connection waits for stderr to drain before reporting the exit. */
const DRAIN_AFTER_EXIT_MS = 200;
/** How long a child that closed its channel may take to exit before it is killed. */
const EXIT_AFTER_DISCONNECT_MS = 1_000;

/** Stack-trace lines Node prints on abort ("----- Native stack trace -----", " 1: 0xd3a3c0 [node]", "    at f (x.js:1)"). */
const STACK_LINE = /^\s*(-{3,}.*-{3,}|\d+: .*|at .*)$/;

/** The last few lines of stderr that are messages rather than stack frames (the abort reason, not the trace). */
export function lastMessages(stderr: string, count = 3): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !STACK_LINE.test(line))
    .slice(-count);
}

/** A running (or finished) GPU process. */
export class GpuProcessConnection {
  /** The child's process id (undefined when it could not be spawned). */
  readonly pid: number | undefined;
  /** Resolves with the exit description once the child is gone. */
  readonly closed: Promise<string>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  private exitDescription: string | undefined;
  private finish: (description: string) => void = () => undefined;

  private constructor(
    launch: ChildLaunch,
    options: ConnectionOptions,
    private readonly listener: ConnectionListener,
  ) {
    this.closed = new Promise((resolve) => {
      this.finish = resolve;
    });
    this.child = fork(launch.entry, [], {
      execArgv: [...launch.execArgv],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    this.pid = this.child.pid;
    const prefix = `[gpu-process ${this.pid ?? '?'}] `;
    let partialLine = '';
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      if (options.stderr !== 'forward') return;
      const lines = (partialLine + chunk).split('\n');
      partialLine = lines.pop() ?? '';
      for (const line of lines) process.stderr.write(`${prefix}${line}\n`);
    });
    this.child.stderr?.on('end', () => {
      if (options.stderr === 'forward' && partialLine !== '') process.stderr.write(`${prefix}${partialLine}\n`);
    });
    this.child.on('message', (message: unknown) => this.receive(message));
    // A closed channel with a live process serves no one: make sure it ends, so pending requests settle.
    this.child.on('disconnect', () => {
      setTimeout(() => this.kill('SIGKILL'), EXIT_AFTER_DISCONNECT_MS).unref();
    });
    this.child.on('error', (error) => {
      if (this.pid === undefined) this.end(`could not be started: ${error.message}`);
    });
    this.child.on('exit', (code, signal) => {
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
      // stderr may still hold the last words (an abort message): give it a moment to arrive.
      const stderr = this.child.stderr;
      if (stderr === null || stderr.closed) {
        this.end(how);
        return;
      }
      const timer = setTimeout(() => this.end(how), DRAIN_AFTER_EXIT_MS);
      stderr.once('close', () => {
        clearTimeout(timer);
        this.end(how);
      });
    });
    this.updateRef();
  }

  /** Forks the child. */
  static start(launch: ChildLaunch, options: ConnectionOptions, listener: ConnectionListener): GpuProcessConnection {
    return new GpuProcessConnection(launch, options, listener);
  }

  /** Whether the child is gone. */
  get exited(): boolean {
    return this.exitDescription !== undefined;
  }

  /** How the child ended, once it has. */
  get exit(): string | undefined {
    return this.exitDescription;
  }

  /** Sends a request; resolves with its checked result, rejects with the child's error or a DeviceLostError. */
  request<K extends RepliedRequestType>(type: K, body: RequestBody<K>, what: string): Promise<GpuResults[K]> {
    return new Promise((resolve, reject) => {
      if (this.exitDescription !== undefined) {
        reject(this.lostError(what));
        return;
      }
      const id = this.nextId++;
      const guard = RESULT_GUARDS[type];
      const settle = (result: unknown): void => {
        if (guard(result)) resolve(result);
        else
          reject(
            new BackendError('BAD_MESSAGE', BACKEND_NAME, `${what}: the GPU process sent a malformed '${type}' result`),
          );
      };
      this.pending.set(id, { type, what, settle, reject });
      this.updateRef();
      try {
        this.child.send({ ...body, type, id }, (error) => {
          if (error !== null) this.sendFailed(id, what, error);
        });
      } catch (error) {
        this.sendFailed(id, what, error);
      }
    });
  }

  /** Requests waiting for a reply, of one type or all. */
  pendingCount(type?: RepliedRequestType): number {
    let count = 0;
    for (const p of this.pending.values()) if (type === undefined || p.type === type) count++;
    return count;
  }

  /** Tells the child to free a buffer (no reply; ignored once the child is gone). */
  free(buffer: number): void {
    if (this.exitDescription !== undefined || !this.child.connected) return;
    try {
      this.child.send({ type: 'free', buffer });
    } catch {
      // The channel just closed: the buffer went with the process.
    }
  }

  /** Sends a signal to the child (tests; close() escalates with it). */
  kill(signal: NodeJS.Signals): void {
    if (this.exitDescription === undefined) this.child.kill(signal);
  }

  /** Asks the child to dispose and exit; kills it after `graceMs`. Resolves once it is gone. */
  async close(graceMs: number): Promise<void> {
    if (this.exitDescription !== undefined) return;
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    this.request('dispose', {}, 'dispose').catch(() => undefined);
    await this.closed;
    clearTimeout(timer);
  }

  private receive(message: unknown): void {
    if (!isGpuReply(message)) {
      process.stderr.write(`[gpu-process ${this.pid ?? '?'}] ignored a malformed reply\n`);
      return;
    }
    this.listener.onHealth(message.health);
    const pending = this.pending.get(message.id);
    if (pending === undefined) return;
    this.pending.delete(message.id);
    this.updateRef();
    if (message.ok) pending.settle(message.result);
    else pending.reject(fromWireError(message.error));
  }

  /** A send that failed because the child is dying waits for its exit (and the DeviceLostError naming it). */
  private sendFailed(id: number, what: string, error: unknown): void {
    if (!this.child.connected || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.fail(
      id,
      new BackendError(
        'IPC_SEND_FAILED',
        BACKEND_NAME,
        `${what}: sending to the GPU process failed: ${errorMessage(error)}`,
      ),
    );
  }

  private fail(id: number, error: Error): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    this.updateRef();
    pending.reject(error);
  }

  /** The error for a request that cannot complete because the child is gone. */
  private lostError(what: string): DeviceLostError {
    return new DeviceLostError(
      BACKEND_NAME,
      `GPU process ${this.pid ?? '?'} ${this.exitDescription ?? 'is gone'} (during ${what})`,
    );
  }

  private end(how: string): void {
    if (this.exitDescription !== undefined) return;
    const lastWords = lastMessages(this.stderrTail).join(' | ');
    this.exitDescription = lastWords === '' ? how : `${how}; its last output: ${lastWords.slice(-500)}`;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(this.lostError(p.what));
    this.listener.onExit(this.exitDescription);
    this.finish(this.exitDescription);
  }

  /** The child keeps this process alive only while a request waits for it. */
  private updateRef(): void {
    const busy = this.pending.size > 0;
    const handles = [
      this.child,
      this.child.channel,
      this.child.stderr instanceof Socket ? this.child.stderr : undefined,
    ];
    for (const handle of handles) {
      if (handle === undefined || handle === null) continue;
      if (busy) handle.ref();
      else handle.unref();
    }
  }
}
