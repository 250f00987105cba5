// Playwright fixtures for the browser tests: one Vite page server per worker, and loading the page's report.
import { test as base, type Page } from '@playwright/test';
import { isPageReport, type PageReport } from './report.ts';
import { startPageServer, type PageServer } from './serve-page.ts';

/** `test` with a worker-scoped `pageServer`. */
export const test = base.extend<Record<never, never>, { pageServer: PageServer }>({
  pageServer: [
    async ({}, use) => {
      const server = await startPageServer();
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';

/** Opens the conformance page and waits for its report (the page calls the exposed `tandemReport`). */
export async function loadReport(page: Page, url: string, timeoutMs: number): Promise<PageReport> {
  const delivered = new Promise<unknown>((resolve, reject) => {
    page.on('pageerror', (error) => reject(new Error(`the page threw: ${error.message}`)));
    setTimeout(() => reject(new Error(`no report from the page within ${timeoutMs} ms`)), timeoutMs).unref();
    void page.exposeFunction('tandemReport', (payload: unknown) => resolve(payload));
  });
  await page.goto(url);
  const payload = await delivered;
  if (!isPageReport(payload))
    throw new Error(`the page sent a malformed report: ${JSON.stringify(payload).slice(0, 300)}`);
  if (payload.error !== undefined) throw new Error(`the page failed: ${payload.error}`);
  return payload;
}
