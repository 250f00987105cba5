// Symbol.dispose and Symbol.asyncDispose for TypeScript settings whose lib predates them (ES2022 without
// esnext.disposable): the same declarations as lib.esnext.disposable and @types/node, so Tensor and Engine type-check
// everywhere. Runtimes without the symbols (older browsers) simply lack `using` support; dispose() still works.
declare global {
  interface SymbolConstructor {
    /** The method `using` calls at the end of its block. */
    readonly dispose: unique symbol;
    /** The method `await using` calls at the end of its block. */
    readonly asyncDispose: unique symbol;
  }
}
export {};
