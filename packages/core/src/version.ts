// The engine's version, as in packages/core/package.json (a structure test checks they agree): part of a profile's
// fingerprint, so a profile learned by another version is not trusted.
export const ENGINE_VERSION = '0.1.0';
