// A server with the options off by default: /debug enabled, the demo served, a cap of 4 connections (the 2,000 most
// frequent wink words; server.test.ts has the default server).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { startServer } from './start.ts';
import { call, metricValue } from './testing/http-probes.ts';

let engine: Engine;

beforeAll(async () => {
  engine = await Engine.create({
    backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })],
  });
}, 60_000);

afterAll(async () => {
  await engine.dispose();
});

describe('a server with the demo, /debug and a cap of 4 connections', () => {
  it('/debug shows the Node version and device strings; static files and long segments get 200/404, never 403; connections past the cap are closed', async () => {
    const demoDir = mkdtempSync(path.join(tmpdir(), 'tandem-demo-'));
    writeFileSync(path.join(demoDir, 'index.html'), '<!doctype html><title>demo</title>');
    const local = await startServer({ port: 0, words: 2000, engine, debug: true, demoDir, maxConnections: 4 });
    try {
      const debug = await fetch(`${local.url}/debug`);
      expect(debug.status).toBe(200);
      const text = await debug.text();
      expect(text).toContain(process.version);
      for (const backend of engine.backends())
        if (backend.device !== undefined) expect(text).toContain(JSON.stringify(backend.device));
      expect((await fetch(`${local.url}/`)).status).toBe(200);
      for (const length of [256, 300, 5000]) {
        const response = await fetch(`${local.url}/${'a'.repeat(length)}`);
        expect([404, 414], `segment of ${length}`).toContain(response.status);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await fetch(`${local.url}/missing.js`)).status).toBe(404);
      // The connection cap: past 4 open connections, new ones are closed at once (and counted).
      const dropped = (): Promise<number> => metricValue(local.url, 'tandem_http_connections_dropped_total');
      const droppedBefore = await dropped();
      const url = new URL(local.url);
      const sockets = Array.from({ length: 8 }, () => connect(Number(url.port), url.hostname));
      const closedAtOnce = await Promise.all(
        sockets.map(
          (s) =>
            new Promise<boolean>((resolve) => {
              s.on('error', () => undefined);
              s.once('close', () => resolve(true));
              setTimeout(() => resolve(false), 500);
            }),
        ),
      );
      for (const s of sockets) s.destroy();
      expect(closedAtOnce.filter(Boolean).length).toBeGreaterThanOrEqual(4);
      expect((await dropped()) - droppedBefore).toBeGreaterThanOrEqual(4);
    } finally {
      await local.close();
      rmSync(demoDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a short inactivity timeout and one heavy request at a time', () => {
  it('requests waiting for their slot longer than the timeout are still answered: the wait is not the client being silent', async () => {
    const idleMs = 250;
    const local = await startServer({
      port: 0,
      words: 2000,
      engine,
      socketIdleMs: idleMs,
      limits: { heavy: { concurrency: 1, queue: 15 } },
    });
    try {
      const spread = JSON.stringify({ word: 'run', maxHops: 10, decay: 1, threshold: 0, k: 100 });
      // The first spread uploads WordNet to the backend in one long step; a step longer than the timeout would
      // let the socket timer fire before the loop reads the socket, which is not what this test is about.
      expect((await call(local.url, '/api/spread', spread)).status).toBe(200);
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 16 }, () => call(local.url, '/api/spread', spread)));
      const waitedMs = performance.now() - started;
      expect(answers.map((a) => a.status)).toEqual(new Array<number>(16).fill(200));
      console.log(
        `  16 spreads one at a time answered in ${waitedMs.toFixed(0)} ms (inactivity timeout ${idleMs} ms${waitedMs > idleMs ? '' : ': too fast here to test the wait'})`,
      );
    } finally {
      await local.close();
    }
  }, 60_000);
});

describe('--profile: a saved engine profile at start', () => {
  it('is imported before the data loads, and the log says so; one of other devices is ignored with the reason', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-profile-'));
    const good = path.join(dir, 'good.json');
    const foreign = path.join(dir, 'foreign.json');
    const exported = engine.profile.export();
    writeFileSync(good, JSON.stringify(exported));
    writeFileSync(
      foreign,
      JSON.stringify({ ...exported, fingerprint: 'tandem 0.0.1 profile v1; gpu(gpu): elsewhere []' }),
    );
    try {
      for (const [file, want] of [
        [good, /^profile .*good\.json: \d+ op\/backend series seeded$/],
        [foreign, /^profile .*foreign\.json ignored: learned on other devices or another version/],
      ] as const) {
        const lines: string[] = [];
        const local = await startServer({ port: 0, words: 2000, engine, profileFile: file, log: (l) => lines.push(l) });
        await local.close();
        expect(lines[0]).toMatch(want);
      }
      await expect(
        startServer({ port: 0, words: 2000, engine, profileFile: path.join(dir, 'none.json') }),
      ).rejects.toThrow(/profile .*none\.json: cannot read it \(ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
