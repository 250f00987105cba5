// The smallest page that runs one 2x2 f32 matmul, on Tandem (from its packed tarballs) and on the two engines users
// would pick instead: onnxruntime-web (wasm execution provider, a one-node MatMul model built in code) and
// @tensorflow/tfjs-core + tfjs-backend-wasm. Each page records the time from the start of its engine to the product,
// and the product, in window.benchResult.
import { matmulModel } from '../competitors/onnx-matmul-model.ts';

/** A page to build with Vite: its dependencies and files. */
export interface PageSpec {
  /** Short name, as in the results. */
  readonly name: string;
  /** Packed Tandem packages to install (by package name). */
  readonly tarballs: readonly string[];
  /** Registry packages to install, at this repository's versions. */
  readonly fromRegistry: readonly string[];
  /** main.js of the page. */
  readonly main: string;
  /** Files of an installed package copied into the build's output (dist-relative target folder -> source folder). */
  readonly copy?: Readonly<Record<string, string>>;
}

const HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>one matmul</title></head><body><script type="module" src="./main.js"></script></body></html>';

/** index.html of every page. */
export const PAGE_HTML = HTML;

const report = (started: string, product: string): string =>
  `window.benchResult = { ms: performance.now() - ${started}, product: Array.from(${product}) };`;

/** The three pages. */
export const PAGES: readonly PageSpec[] = [
  {
    name: 'tandem',
    tarballs: ['tandem'],
    fromRegistry: ['vite'],
    main: `import { createEngine } from 'tandem';
const started = performance.now();
const engine = await createEngine({ profile: false }); // a first start: no saved profile
const a = engine.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
const product = await (await engine.matmul(a, a)).read();
${report('started', 'product')}
`,
  },
  {
    name: 'onnxruntime-web',
    tarballs: [],
    fromRegistry: ['vite', 'onnxruntime-web'],
    main: `import * as ort from 'onnxruntime-web/wasm'; // the WASM-only build, its smallest
const started = performance.now();
const session = await ort.InferenceSession.create(new Uint8Array([${Array.from(matmulModel(2, 2, 2)).join(',')}]), { executionProviders: ['wasm'] });
const a = new ort.Tensor('float32', new Float32Array([1, 2, 3, 4]), [2, 2]);
const result = await session.run({ A: a, B: a });
${report('started', "result['C'].data")}
`,
  },
  {
    name: 'tfjs-core + tfjs-backend-wasm',
    tarballs: [],
    fromRegistry: ['vite', '@tensorflow/tfjs-core', '@tensorflow/tfjs-backend-wasm'],
    main: `import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
const started = performance.now();
setWasmPaths(new URL('./tfjs-wasm/', location.href).href); // tfjs does not let bundlers find its .wasm files
// Its threaded build fails once bundled (its workers throw "e is not defined" in a cross-origin isolated page): one thread.
tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
await tf.setBackend('wasm');
const a = tf.tensor2d([1, 2, 3, 4], [2, 2]);
const product = await tf.matMul(a, a).data();
${report('started', 'product')}
`,
    copy: { 'tfjs-wasm': 'node_modules/@tensorflow/tfjs-backend-wasm/dist' },
  },
];
