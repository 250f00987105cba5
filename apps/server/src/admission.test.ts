// serverBusy: a socket's inactivity timeout is off while the server works for any request of it.
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serverBusy } from './admission.ts';

describe('serverBusy', () => {
  it('turns the timeout off while work runs and back on after, also when the work fails', async () => {
    const socket = new Socket();
    socket.setTimeout(1500);
    const seen = await serverBusy(socket, 1500, async () => socket.timeout);
    expect(seen).toBe(0);
    expect(socket.timeout).toBe(1500);
    await expect(serverBusy(socket, 1500, async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(socket.timeout).toBe(1500);
    socket.destroy();
  });

  it('with two requests of one socket (pipelined), the timeout comes back only when both are done', async () => {
    const socket = new Socket();
    let finishFirst = (): void => undefined;
    const first = serverBusy(socket, 1500, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    await serverBusy(socket, 1500, async () => undefined);
    expect(socket.timeout).toBe(0);
    finishFirst();
    await first;
    expect(socket.timeout).toBe(1500);
    socket.destroy();
  });
});
