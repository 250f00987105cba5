export * from './dtype.ts';
export * from './half.ts';
export * from './errors.ts';
export * from './ops.ts';
export * from './shape.ts';
export * from './op-info.ts';
export * from './backend.ts';
export * from './capability.ts';
