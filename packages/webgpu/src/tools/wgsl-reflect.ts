// The embed step's WGSL reader: expands `//! include <path>` lines (shared helpers, each file once per shader) and
// reflects a kernel's interface from its declarations: the @compute entry point, the storage bindings in @binding
// order, the uniform `struct Params` fields and the override constants. The TypeScript kernel specs are generated
// from this (wgsl-kernels.generated.ts), so a shader is the one place its bindings are written.

/** How a storage binding is declared. */
export type ReflectedAccess = 'read' | 'read_write';

/** Scalar types of a `struct Params` field (4 bytes each, so field i sits at byte 4 * i). */
export type ReflectedParamType = 'u32' | 'i32' | 'f32';

/** One kernel's interface, as its shader declares it. */
export interface ReflectedKernel {
  /** The @compute function. */
  readonly entryPoint: string;
  /** Storage bindings in @binding order, from 0. */
  readonly bindings: ReadonlyArray<{ readonly name: string; readonly access: ReflectedAccess }>;
  /** Fields of `struct Params`, bound as `var<uniform> params` right after the storage bindings. */
  readonly params: ReadonlyArray<{ readonly name: string; readonly type: ReflectedParamType }>;
  /** Override constants the host may set. */
  readonly overrides: readonly string[];
}

/** A shader error found while embedding, naming the file. */
export class WgslEmbedError extends Error {
  override readonly name = 'WgslEmbedError';
}

const INCLUDE = /^\/\/! include (\S+)\s*$/gm;

/**
 * `source` with every `//! include <path>` line replaced by that file's text (paths relative to wgsl/, read with
 * `read`), recursively, each file at most once (a second include of it is dropped).
 */
export function expandIncludes(
  file: string,
  source: string,
  read: (path: string) => string,
  seen: Set<string> = new Set(),
): string {
  return source.replace(INCLUDE, (_line, path: string) => {
    if (seen.has(path)) return `// (${path} included above)`;
    seen.add(path);
    let text: string;
    try {
      text = read(path);
    } catch {
      throw new WgslEmbedError(`${file}: cannot read the included file ${path}`);
    }
    return expandIncludes(path, text, read, seen).trimEnd();
  });
}

/** Whether a shader is a kernel (declares a @compute entry point) rather than a file of helpers to include. */
export function isKernel(source: string): boolean {
  return /@compute\b/.test(source);
}

/** The interface a kernel's (expanded) source declares; throws WgslEmbedError naming `file` when it breaks a rule. */
export function reflectKernel(file: string, source: string): ReflectedKernel {
  const entry = /@compute\s+@workgroup_size\([^)]*\)\s*fn\s+(\w+)\s*\(/.exec(source)?.[1];
  if (entry === undefined)
    throw new WgslEmbedError(`${file}: no '@compute @workgroup_size(...) fn <name>(' entry point`);
  const declared = [
    ...source.matchAll(
      /@group\((\d+)\)\s*@binding\((\d+)\)\s*var<(storage|uniform)(?:\s*,\s*(read|read_write))?>\s*(\w+)\s*:\s*([^;]+);/g,
    ),
  ];
  const bindings: Array<{ name: string; access: ReflectedAccess }> = [];
  let uniform: { binding: number; name: string; type: string } | undefined;
  for (const [, group, binding, kind, access, name = '', type = ''] of declared) {
    if (group !== '0') throw new WgslEmbedError(`${file}: ${name} is in @group(${group}); kernels bind group 0 only`);
    const index = Number(binding);
    if (kind === 'uniform') {
      if (uniform !== undefined) throw new WgslEmbedError(`${file}: more than one uniform binding`);
      uniform = { binding: index, name, type: type.trim() };
      continue;
    }
    if (index !== bindings.length)
      throw new WgslEmbedError(
        `${file}: storage binding ${name} is @binding(${index}); expected ${bindings.length} (storage bindings come first, in order)`,
      );
    bindings.push({ name, access: access === 'read_write' ? 'read_write' : 'read' });
  }
  if (
    uniform === undefined ||
    uniform.name !== 'params' ||
    uniform.type !== 'Params' ||
    uniform.binding !== bindings.length
  ) {
    throw new WgslEmbedError(
      `${file}: needs 'var<uniform> params: Params' at @binding(${bindings.length}), right after the storage bindings`,
    );
  }
  return {
    entryPoint: entry,
    bindings,
    params: paramsFields(file, source),
    overrides: [...source.matchAll(/^override\s+(\w+)\s*:/gm)].map((m) => m[1] ?? ''),
  };
}

function paramsFields(file: string, source: string): Array<{ name: string; type: ReflectedParamType }> {
  const body = /struct\s+Params\s*\{([^}]*)\}/.exec(source)?.[1];
  if (body === undefined) throw new WgslEmbedError(`${file}: no 'struct Params { ... }'`);
  return [...body.matchAll(/(\w+)\s*:\s*(\w+)/g)].map(([, name = '', type = '']) => {
    if (type !== 'u32' && type !== 'i32' && type !== 'f32')
      throw new WgslEmbedError(`${file}: Params.${name} is ${type}; fields are u32, i32 or f32`);
    return { name, type };
  });
}
