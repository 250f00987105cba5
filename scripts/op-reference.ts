// docs/ops.md, generated: every op's engine method (signature and doc comment, read from packages/core/src/engine.ts
// with the TypeScript parser), its inputs with dtypes, ranks and doc comments (from its defineOp in
// packages/core/src/ops/<op_id>.ts, or its family's in op-families.ts), its parameters and options with defaults,
// the shapes of its conformance cases run through the op's own output rule, and which backend runs it on which dtypes
// (each backend's kernel table, with the header comment of its kernel file).
//
//   node -C @tandem/source --import tsx scripts/op-reference.ts          writes docs/ops.md
//   node -C @tandem/source --import tsx scripts/op-reference.ts --check  exits 1 when docs/ops.md is stale
// --help lists the flags; an unknown one is an error (exit 2).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  CALL_OPTION_KEYS,
  inferOutputs,
  isKnownOp,
  kernelName,
  mapOpTensors,
  OP_DEFINITIONS,
  OP_KINDS,
  type Capability,
  type InputSpec,
  type OpKind,
  type ParamKind,
  type TensorSpec,
} from '@tandem/core';
import { REFERENCE_CAPABILITIES } from '@tandem/reference';
import { ROCM_CAPABILITIES } from '@tandem/rocm';
import { WASM_CAPABILITIES } from '@tandem/wasm';
import { WEBGPU_CAPABILITIES } from '@tandem/webgpu';
import { CASES, caseRng } from '../test/conformance/cases.ts';
import { parseCommandLine } from '../apps/bench/src/command-line.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the reference is written. */
export const OPS_MD = 'docs/ops.md';

/** Each backend's capability table (derived from its kernel table) and its kernel folder. */
const BACKENDS: ReadonlyArray<{ name: string; capabilities: readonly Capability[]; kernels: string }> = [
  { name: 'reference', capabilities: REFERENCE_CAPABILITIES, kernels: 'packages/reference/src/kernels' },
  { name: 'wasm', capabilities: WASM_CAPABILITIES, kernels: 'packages/wasm/src/kernels' },
  { name: 'webgpu', capabilities: WEBGPU_CAPABILITIES, kernels: 'packages/webgpu/src/kernels' },
  { name: 'rocm', capabilities: ROCM_CAPABILITIES, kernels: 'packages/rocm/src/kernels' },
];

/** Examples of shapes per op, at most this many. */
const MAX_EXAMPLES = 5;

function read(path: string): string {
  return readFileSync(`${ROOT}${path}`, 'utf8');
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, read(path), ts.ScriptTarget.ES2022, true);
}

/** The JSDoc text of a node, on one line. */
function docOf(node: ts.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  return docs
    .map((d) => ts.getTextOfJSDocComment(d.comment) ?? '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Every node of a tree, depth first. */
function* walk(node: ts.Node): Generator<ts.Node> {
  yield node;
  for (const child of node.getChildren()) yield* walk(child);
}

function propertyName(node: ts.PropertyAssignment | ts.PropertySignature | ts.BindingElement): string {
  const name = ts.isBindingElement(node) ? (node.propertyName ?? node.name) : node.name;
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText();
}

/** The doc comments of the properties of every object literal assigned to `key` (e.g. 'inputs') in a file. */
function literalDocs(file: ts.SourceFile, key: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const node of walk(file)) {
    if (!ts.isPropertyAssignment(node) || propertyName(node) !== key || !ts.isObjectLiteralExpression(node.initializer))
      continue;
    for (const p of node.initializer.properties) if (ts.isPropertyAssignment(p)) docs.set(propertyName(p), docOf(p));
  }
  return docs;
}

/** The doc comments of op `kind`'s inputs and parameters: its own file's, else its family's (op-families.ts). */
function definitionDocs(kind: OpKind): { inputs: Map<string, string>; params: Map<string, string> } {
  const own = parse(`packages/core/src/ops/${kernelName(kind)}.ts`);
  const inputs = literalDocs(own, 'inputs');
  if (inputs.size > 0) return { inputs, params: literalDocs(own, 'params') };
  const families = parse('packages/core/src/op-families.ts');
  const called = [...walk(own)].find(
    (n): n is ts.CallExpression =>
      ts.isCallExpression(n) && ts.isIdentifier(n.expression) && /Elementwise$/.test(n.expression.text),
  );
  const family = [...walk(families)].find(
    (n): n is ts.FunctionDeclaration => ts.isFunctionDeclaration(n) && n.name?.text === called?.expression.getText(),
  );
  if (family === undefined) throw new Error(`${kind}: no input docs in its definition or its family's`);
  const scope = ts.createSourceFile('family.ts', family.getText(), ts.ScriptTarget.ES2022, true);
  return { inputs: literalDocs(scope, 'inputs'), params: literalDocs(scope, 'params') };
}

/** An engine method: its signature(s) as written (its overloads, when it has some), its doc comment, its parameter names and option defaults. */
interface MethodInfo {
  readonly signatures: readonly string[];
  readonly doc: string;
  readonly parameters: readonly string[];
  readonly optionTypes: readonly string[];
  readonly defaults: ReadonlyMap<string, string>;
}

/** Engine's op methods, by name, from packages/core/src/engine.ts. */
function engineMethods(): Map<string, MethodInfo> {
  const file = parse('packages/core/src/engine.ts');
  const engine = [...walk(file)].find(
    (n): n is ts.ClassDeclaration => ts.isClassDeclaration(n) && n.name?.text === 'Engine',
  );
  const methods = new Map<string, MethodInfo>();
  const overloads = new Map<string, ts.MethodDeclaration[]>();
  for (const member of engine?.members ?? []) {
    if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name)) continue;
    const name = member.name.text;
    const declarations = overloads.get(name) ?? [];
    overloads.set(name, declarations);
    if (member.body === undefined) {
      declarations.push(member);
      continue;
    }
    const signatures = (declarations.length > 0 ? declarations : [member]).map((m) => signatureOf(name, m));
    const optionTypes = member.parameters
      .filter((p) => p.name.getText() === 'options')
      .flatMap((p) => (p.type?.getText() ?? '').split('&').map((t) => t.trim().replace(/<.*$/, '')));
    const defaults = new Map<string, string>();
    for (const node of walk(member.body)) {
      if (ts.isBindingElement(node) && node.initializer !== undefined)
        defaults.set(propertyName(node), node.initializer.getText());
    }
    methods.set(name, {
      signatures,
      doc: docOf(declarations[0] ?? member),
      parameters: member.parameters.map((p) => p.name.getText()),
      optionTypes,
      defaults,
    });
  }
  return methods;
}

/** A method's signature as a user reads it: `= {}` defaults shown as optional parameters, NoInfer<D> as D. */
function signatureOf(name: string, m: ts.MethodDeclaration): string {
  const typeParameters =
    m.typeParameters === undefined ? '' : `<${m.typeParameters.map((t) => t.getText()).join(', ')}>`;
  const parameters = m.parameters.map((p) => {
    const text = p.initializer === undefined ? p.getText() : `${p.name.getText()}?: ${p.type?.getText() ?? 'unknown'}`;
    return text.replace(/\s+/g, ' ').replace(/NoInfer<(\w+)>/g, '$1');
  });
  return `${name}${typeParameters}(${parameters.join(', ')}): ${m.type?.getText() ?? 'void'}`;
}

/** Interface members with their doc comments, by interface name, from the files that declare the options types. */
function optionInterfaces(): Map<string, Array<{ name: string; type: string; optional: boolean; doc: string }>> {
  const interfaces = new Map<string, Array<{ name: string; type: string; optional: boolean; doc: string }>>();
  for (const path of [
    'packages/core/src/op-options.ts',
    'packages/core/src/call-options.ts',
    'packages/core/src/creators.ts',
  ]) {
    for (const node of walk(parse(path))) {
      if (!ts.isInterfaceDeclaration(node)) continue;
      interfaces.set(
        node.name.text,
        node.members.filter(ts.isPropertySignature).map((m) => ({
          name: propertyName(m),
          type: (m.type?.getText() ?? '').replace(/ \| undefined$/, ''),
          optional: m.questionToken !== undefined,
          doc: docOf(m),
        })),
      );
    }
  }
  return interfaces;
}

/** `InputDType<'matmul', 'a'>` spelled as the dtypes it stands for (`'f32' | 'f16'`), so signatures read plainly. */
function plainTypes(text: string): string {
  return text.replace(/InputDType<'(\w+)', '(\w+)'>/g, (_, op: string, input: string) => {
    const inputs: Readonly<Record<string, InputSpec>> | undefined = isKnownOp(op)
      ? OP_DEFINITIONS[op].inputs
      : undefined;
    const spec = inputs?.[input];
    if (spec === undefined) throw new Error(`InputDType<'${op}', '${input}'>: no such input`);
    return spec.dtypes.map((d) => `'${d}'`).join(' | ');
  });
}

function rankText(spec: InputSpec): string {
  if (spec.ranks !== undefined) return spec.ranks.join(' or ');
  if (spec.minRank !== undefined) return `>= ${spec.minRank}`;
  return 'any';
}

function paramKindText(kind: ParamKind): string {
  if (typeof kind === 'string') return kind === 'number?' ? 'number (optional)' : kind;
  return kind.map((k) => `'${k}'`).join(' \\| ');
}

const shape = (t: TensorSpec): string => `[${t.shape.join(', ')}] ${t.dtype}`;

/** Distinct input -> output shapes of op `kind`'s conformance cases (each checked by the op's own output rule). */
function shapeExamples(kind: OpKind): { examples: string[]; cases: number } {
  const seen = new Set<string>();
  let cases = 0;
  for (const c of CASES) {
    const op = c.build(caseRng(c.name));
    if (op.op !== kind) continue;
    cases++;
    const parts: string[] = [];
    mapOpTensors(op, (t, name) => {
      parts.push(`${name} ${shape(t)}`);
      return t;
    });
    seen.add(`${parts.join(', ')} -> ${inferOutputs(op).map(shape).join(' and ')}`);
  }
  // Spread over the cases (small, odd, degenerate, other dtypes, large) rather than the first few.
  const all = [...seen];
  const step = all.length / Math.min(MAX_EXAMPLES, all.length);
  return {
    examples: Array.from({ length: Math.min(MAX_EXAMPLES, all.length) }, (_, i) => all[Math.floor(i * step)] ?? ''),
    cases,
  };
}

/** The first comment block of a kernel file, on one line. */
function kernelComment(path: string): string | undefined {
  if (!existsSync(`${ROOT}${path}`)) return undefined;
  const lines: string[] = [];
  for (const line of read(path).split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/** Markdown table cell text: pipes escaped. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

function opSection(
  kind: OpKind,
  methods: Map<string, MethodInfo>,
  interfaces: ReturnType<typeof optionInterfaces>,
): string {
  const definition: {
    doc: string;
    inputs: Readonly<Record<string, InputSpec>>;
    params: Readonly<Record<string, ParamKind>>;
  } = OP_DEFINITIONS[kind];
  const docs = definitionDocs(kind);
  const method = methods.get(kind);
  if (method === undefined) throw new Error(`Engine has no method ${kind}`);
  const out: string[] = [`## ${kind}`, '', definition.doc, ''];
  const runFields = [...Object.keys(definition.inputs), ...Object.keys(definition.params)].join(', ');
  out.push(
    '```ts',
    ...method.signatures.map((s) => `engine.${plainTypes(s)}`),
    `engine.run({ op: '${kind}', ${runFields} }, options?: CallOptions): Promise<Tensor[]>`,
    '```',
    '',
  );
  if (method.doc !== '') out.push(plainTypes(method.doc), '');

  out.push('| input | dtypes | rank | |', '| --- | --- | --- | --- |');
  for (const [name, spec] of Object.entries(definition.inputs)) {
    const dtypes =
      spec.sameDtypeAs === undefined
        ? spec.dtypes.join(', ')
        : `${spec.dtypes.join(', ')}; same as ${spec.sameDtypeAs}`;
    const optional = spec.optional === true ? ' Optional.' : '';
    out.push(`| \`${name}\` | ${dtypes} | ${rankText(spec)} | ${cell(docs.inputs.get(name) ?? '')}${optional} |`);
  }
  out.push('');

  // Parameters: positional when the method names them, else options (with the method's default where it has one).
  const options = method.optionTypes.flatMap((t) =>
    t === 'CallOptions' ? [] : (interfaces.get(t) ?? []).map((m) => ({ ...m, owner: t })),
  );
  const rows: string[] = [];
  for (const [name, kind_] of Object.entries(definition.params)) {
    const positional = method.parameters.includes(name);
    const option = options.find((o) => o.name === name);
    const given = positional
      ? 'argument'
      : option !== undefined
        ? option.optional
          ? 'option'
          : 'option (required)'
        : 'run() only';
    const fallback = method.defaults.get(name) ?? (option?.optional === true ? 'none' : '');
    rows.push(
      `| \`${name}\` | ${paramKindText(kind_)} | ${given} | ${cell(fallback)} | ${cell(docs.params.get(name) ?? option?.doc ?? '')} |`,
    );
  }
  for (const o of options) {
    if (Object.hasOwn(definition.params, o.name) || definition.inputs[o.name] !== undefined) continue;
    rows.push(
      `| \`${o.name}\` | ${cell(plainTypes(o.type))} | option (method only) | ${cell(method.defaults.get(o.name) ?? '')} | ${cell(o.doc)} |`,
    );
  }
  for (const o of options.filter((o) => definition.inputs[o.name] !== undefined)) {
    rows.push(
      `| \`${o.name}\` | ${cell(plainTypes(o.type).replace(/^T$/, 'Tensor'))} | option (an input) | ${cell(method.defaults.get(o.name) ?? 'none')} | ${cell(o.doc)} |`,
    );
  }
  if (rows.length > 0)
    out.push('| parameter | type | given as | default | |', '| --- | --- | --- | --- | --- |', ...rows, '');
  out.push(
    `Options: ${options.length === 0 ? '' : `${[...new Set(options.map((o) => `\`${o.name}\``))].join(', ')}, and `}the call options (${CALL_OPTION_KEYS.map((k) => `\`${k}\``).join(', ')}); any other key is an \`InvalidArgumentError\`.`,
    '',
  );

  const { examples, cases } = shapeExamples(kind);
  if (examples.length > 0)
    out.push(`Shapes, from its conformance cases (${cases} cases):`, '', ...examples.map((e) => `- ${e}`), '');

  out.push('| backend | dtypes of the first input | kernel |', '| --- | --- | --- |');
  for (const backend of BACKENDS) {
    const row = backend.capabilities.find((c) => c.op === kind);
    const path = `${backend.kernels}/${kernelName(kind)}.ts`;
    const comment = kernelComment(path);
    const kernel =
      comment === undefined ? "the unary family's generic kernel" : `[${kernelName(kind)}.ts](../${path}): ${comment}`;
    out.push(
      row === undefined
        ? `| ${backend.name} | not implemented | |`
        : `| ${backend.name} | ${row.dtypes.join(', ')} | ${cell(kernel)} |`,
    );
  }
  out.push('');
  return out.join('\n');
}

/** The engine's tensor makers: engine.tensor() and the creators, with random()'s options. */
function creatorsSection(methods: Map<string, MethodInfo>, interfaces: ReturnType<typeof optionInterfaces>): string {
  const out = [
    '## Making tensors',
    '',
    'Tensors come from host data (`engine.tensor`) or from the creators; either way the data starts on the host and is',
    'uploaded once, to the backend of the first op that reads it. Each is typed by its dtype.',
    '',
  ];
  for (const name of ['tensor', 'zeros', 'ones', 'full', 'random']) {
    const method = methods.get(name);
    if (method === undefined) throw new Error(`Engine has no method ${name}`);
    out.push(`### ${name}`, '', '```ts', ...method.signatures.map((s) => `engine.${s}`), '```', '', method.doc, '');
  }
  out.push('| `random` option | type | |', '| --- | --- | --- |');
  for (const m of interfaces.get('RandomOptions') ?? [])
    out.push(`| \`${m.name}\` | ${cell(m.type)} | ${cell(m.doc)} |`);
  out.push(
    '',
    'A bad shape, dtype, value or option is an `InvalidArgumentError` naming it (`full.value = 1.5: must be an integer in [-2^31, 2^31 - 1] for i32`).',
    '',
  );
  return out.join('\n');
}

/** The whole of docs/ops.md. */
export function opReference(): string {
  const methods = engineMethods();
  const interfaces = optionInterfaces();
  const broadcasting = OP_KINDS.filter((k) => /broadcast/.test(OP_DEFINITIONS[k].doc));
  const header = [
    '# Op reference',
    '',
    "<!-- Generated by scripts/op-reference.ts from the op definitions (packages/core/src/ops/), the engine's methods",
    "     and the backends' kernel tables. Do not edit: run `npm run docs:ops`; test/structure/op-reference.test.ts",
    '     fails when this file is stale. -->',
    '',
    `Every op Tandem runs, ${OP_KINDS.length} in all, in the registry's order: ${OP_KINDS.map((k) => `[${k}](#${k.toLowerCase()})`).join(', ')}; and [making tensors](#making-tensors)`,
    '(`tensor`, `zeros`, `ones`, `full`, `random`).',
    '',
    'Each op is an engine method (`engine.matmul(a, b)`) and an op object for `engine.run()` / `engine.explain()`',
    "(`{ op: 'matmul', a, b }`). The methods carry the dtype: their inputs are `Tensor`s of the dtypes listed, their",
    'output a `Tensor<dtype>`, so `read()` gives the matching array (`Float32Array` for f32 and for f16, whose values',
    'widen exactly; `Int32Array`, `Uint32Array`, `Uint8Array` of blocks for q8_0 / q4_0). `run()` returns `Tensor[]`.',
    '',
    "- **Checks.** Every input's dtype and rank, then the op's own rules (shapes across inputs, parameter ranges), are",
    '  checked before any backend is asked; a violation is an `InvalidArgumentError` naming the argument',
    '  (`matmul.b.shape[0] = 4: must equal a.shape[1] (3)`). Zero-size dimensions are allowed everywhere.',
    `- **Broadcasting** is a suffix rule and only in ${broadcasting.map((k) => `\`${k}\``).join(' and ')}: \`b\`'s shape must equal \`a\`'s or a`,
    "  suffix of it (`a [2, 3, 4]` with `b [3, 4]` or `b [4]`), and `b` repeats over `a`'s leading dimensions. There is no",
    '  size-1 stretching and `a` is never broadcast; other ops need exact shapes.',
    '- **Call options** (`CallOptions`, the last argument of every method and of `run` / `explain`): `strategy`',
    "  (`'auto'`, `'gpu-preferred'`, `'cpu-preferred'` or `{ only: backend }`), `label` (names the call in telemetry)",
    '  and `signal` (an `AbortSignal`). Unknown keys and unsupported values are an `InvalidArgumentError`.',
    "- **Backends.** Each backend's kernel table lists the ops it runs and the dtypes of their first input; the",
    '  scheduler skips a backend without a kernel for the call (its reason says so), so an op runs wherever a kernel',
    "  exists. Limits that depend on the device (GPU workgroup or buffer sizes, a HIP build's maximum `k`) are",
    '  checked per call and named in the skip reason.',
    '',
  ];
  return `${[...header, creatorsSection(methods, interfaces), ...OP_KINDS.map((k) => opSection(k, methods, interfaces))].join('\n').trimEnd()}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseCommandLine(
    {
      command: 'node -C @tandem/source --import tsx scripts/op-reference.ts [--check]   (npm run docs:ops)',
      summary: `Writes ${OPS_MD}, the op reference generated from the op definitions, the engine and the kernel tables.`,
    },
    { check: { type: 'boolean', help: `write nothing; exit 1 when ${OPS_MD} is not what would be written` } },
  );
  const text = opReference();
  const path = `${ROOT}${OPS_MD}`;
  if (args.on('check')) {
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current !== text) {
      console.error(`${OPS_MD} is stale: run npm run docs:ops`);
      process.exit(1);
    }
    console.log(`${OPS_MD} is up to date`);
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${OPS_MD} (${OP_KINDS.length} ops)`);
  }
}
