// Turns: one compute step per event-loop iteration, with the loop's other work in between.
import { describe, expect, it } from 'vitest';
import { Turns } from './turns.ts';

describe('Turns', () => {
  it('grants waiters in order, one per loop iteration: a callback queued each iteration runs between two steps', async () => {
    const turns = new Turns();
    const log: string[] = [];
    const steps = ['a', 'b', 'c'].map((name) => turns.next().then(() => log.push(name)));
    expect(turns.pending).toBe(3);
    let ticks = 0;
    const tick = (): void => {
      log.push('tick');
      if (++ticks < 4) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(steps);
    expect(log.filter((e) => e !== 'tick')).toEqual(['a', 'b', 'c']);
    // Between any two steps at least one iteration's callback ran.
    expect(log.join(' ')).toMatch(/^a (tick )+b (tick )+c/);
    expect(turns.grants).toBe(3);
    expect(turns.pending).toBe(0);
  });

  it('lets I/O in between steps that each block the thread', async () => {
    const turns = new Turns();
    const { createServer, request } = await import('node:http');
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = address !== null && typeof address === 'object' ? address.port : 0;
    let stepsDone = 0;
    const busy = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const work = Promise.all(
      Array.from({ length: 40 }, async () => {
        await turns.next();
        busy(5);
        stepsDone++;
      }),
    );
    const answeredAfter = await new Promise<number>((resolve) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        res.on('end', () => resolve(stepsDone));
      }).end();
    });
    await work;
    server.close();
    // Without turns all 40 steps would run before the response could be read.
    expect(answeredAfter).toBeLessThan(40);
  });
});
