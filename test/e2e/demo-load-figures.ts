// The demo's first load on a slow network (issue 33's figures): the built demo as the Tandem server serves it
// (precompressed files, immutable hashed assets), loaded in headless Chromium with the network throttled (CDP, cache
// off), once per run in a fresh browser context. Prints, per run: the bytes on the wire and the requests (all of
// them, the engine worker's data fetches included, from Playwright's request.sizes(); and what the page's own CDP
// session counted, which does not see the worker), the time to the first search possible (the words loaded), to the
// first 10 hits shown, and to "Ready"; the large responses' download times (to see that the throttle reached the
// worker's fetches); and the machine's load averages. Not a test: nothing is asserted.
//
//   npm run build -w @tandem/demo
//   node -C @tandem/source --import tsx test/e2e/demo-load-figures.ts [--runs 2] [--mbit 40] [--latency 20] [--json FILE]
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Request } from '@playwright/test';
import { startDemoServer } from '../../apps/demo/scripts/serve-demo.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { countBytes, throttle } from './demo-figures.ts';

const USAGE = `Usage: node -C @tandem/source --import tsx test/e2e/demo-load-figures.ts [options]
(after npm run build -w @tandem/demo)

  --runs N          loads to measure, each in a fresh browser context (default 2)
  --mbit N          throughput each way, Mbit/s (default 40)
  --latency MS      round-trip latency, ms (default 20)
  --json FILE       also write the figures there as JSON
  -h, --help        this text`;

/** One large response: how long its body took to arrive. */
interface Transfer {
  /** The path requested. */
  readonly path: string;
  /** Body bytes on the wire (after compression). */
  readonly bytes: number;
  /** From the first byte of the response to its end, ms. */
  readonly ms: number;
  /** bytes / ms, in Mbit/s. */
  readonly mbit: number;
}

/** One load's figures. */
interface LoadFigures {
  /** Bytes on the wire, headers and bodies, of every request (page and worker). */
  readonly bytes: number;
  /** Requests finished. */
  readonly requests: number;
  /** What the page's CDP session counted (the worker's fetches are not among them). */
  readonly pageCdp: { readonly bytes: number; readonly requests: number };
  /** From navigation to the words loaded (a search can run), ms. */
  readonly firstSearchPossibleMs: number;
  /** From navigation to the first query's 10 hits on the page, ms. */
  readonly firstHitsMs: number;
  /** From navigation to "Ready", ms. */
  readonly readyMs: number;
  /** Responses of 1 MB or more. */
  readonly large: readonly Transfer[];
  /** os.loadavg() before and after the run. */
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
}

/** A number flag (a finite number > 0). */
function positive(name: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    console.error(`--${name} ${raw}: must be a number above 0\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

/** Reads the command line; prints the usage and exits on --help (0) or an error (2). */
function commandLine(): { runs: number; mbit: number; latency: number; json: string | undefined } {
  let values: ReturnType<typeof parse>['values'];
  function parse() {
    return parseArgs({
      options: {
        runs: { type: 'string', default: '2' },
        mbit: { type: 'string', default: '40' },
        latency: { type: 'string', default: '20' },
        json: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  }
  try {
    values = parse().values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return {
    runs: Math.round(positive('runs', values.runs)),
    mbit: positive('mbit', values.mbit),
    latency: positive('latency', values.latency),
    json: values.json,
  };
}

/** Loads the demo once at `mbit` / `latencyMs`, in a fresh context. */
async function measureLoad(browser: Browser, url: string, mbit: number, latencyMs: number): Promise<LoadFigures> {
  const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await throttle(cdp, mbit, latencyMs);
    const pageCdp = await countBytes(cdp);
    let bytes = 0;
    let requests = 0;
    const large: Transfer[] = [];
    const sizing: Promise<void>[] = [];
    const finished = (request: Request): void => {
      sizing.push(
        request.sizes().then((sizes) => {
          const body = sizes.responseBodySize;
          bytes += sizes.responseHeadersSize + body;
          requests++;
          if (body < 1e6) return;
          const timing = request.timing();
          const ms = timing.responseEnd - timing.responseStart;
          large.push({
            path: new URL(request.url()).pathname,
            bytes: body,
            ms: Math.round(ms),
            mbit: Number(((body * 8) / (ms * 1000)).toFixed(1)),
          });
        }),
      );
    };
    context.on('requestfinished', finished);
    const status = page.locator('#status');
    const t0 = Date.now();
    const since = async (wait: Promise<unknown>): Promise<number> => {
      await wait;
      return Date.now() - t0;
    };
    const [, firstSearchPossibleMs, firstHitsMs, readyMs] = await Promise.all([
      page.goto(url),
      since(page.locator('#status[data-words="ready"]').waitFor({ state: 'attached', timeout: 300_000 })),
      since(page.locator('#nearest-brute .hits li').nth(9).waitFor({ timeout: 300_000 })),
      since(page.locator('#status[data-state="ready"], #status[data-state="error"]').waitFor({ timeout: 300_000 })),
    ]);
    const text = (await status.textContent()) ?? '';
    if ((await status.getAttribute('data-state')) !== 'ready') throw new Error(`the demo did not start: ${text}`);
    await page.waitForTimeout(500); // the last responses' sizes
    await Promise.all(sizing);
    return {
      bytes,
      requests,
      pageCdp: pageCdp(),
      firstSearchPossibleMs,
      firstHitsMs,
      readyMs,
      large: large.sort((a, b) => b.bytes - a.bytes),
      loadBefore,
      loadAfter: loadavg().map((l) => Number(l.toFixed(2))),
    };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const options = commandLine();
  const missing = chromiumMissing();
  if (missing !== undefined) throw new Error(missing);
  process.env['TANDEM_DEMO_DIST'] ??= 'server';
  const server = await startDemoServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] });
  const figures: LoadFigures[] = [];
  try {
    console.log(
      `the demo served as '${server.serves}' at ${server.url}; ${options.mbit} Mbit/s each way, ${options.latency} ms latency, cache off`,
    );
    for (let run = 1; run <= options.runs; run++) {
      const f = await measureLoad(browser, server.url, options.mbit, options.latency);
      figures.push(f);
      console.log(
        `run ${run}: ${f.bytes.toLocaleString('en')} bytes in ${f.requests} requests (page CDP: ${f.pageCdp.bytes.toLocaleString('en')} in ${f.pageCdp.requests}); first search possible ${(f.firstSearchPossibleMs / 1000).toFixed(1)} s, first hits ${(f.firstHitsMs / 1000).toFixed(1)} s, Ready ${(f.readyMs / 1000).toFixed(1)} s; load average ${f.loadBefore.join(', ')} before, ${f.loadAfter.join(', ')} after`,
      );
      for (const t of f.large)
        console.log(`  ${t.path}: ${t.bytes.toLocaleString('en')} bytes in ${t.ms} ms (${t.mbit} Mbit/s)`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  if (options.json !== undefined) await writeFile(options.json, `${JSON.stringify({ options, figures }, null, 2)}\n`);
}

await main();
