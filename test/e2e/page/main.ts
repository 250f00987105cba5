// The page's entry: runs the conformance cases and hands the report to the test (an exposed `tandemReport`
// function), or logs it when the page is opened by hand (`npx vite test/e2e/page`).
import { runConformanceInPage } from './run-conformance.ts';

const report = await runConformanceInPage();
const sink: unknown = Reflect.get(globalThis, 'tandemReport');
if (typeof sink === 'function') await Reflect.apply(sink, globalThis, [report]);
else console.log('tandem conformance report', report);
