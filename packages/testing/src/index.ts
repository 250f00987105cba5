export * from './manual-clock.ts';
export * from './simulated-backend.ts';
export * from './fault-injecting-backend.ts';
