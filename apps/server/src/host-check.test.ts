// The Host allow-list's parsing and matching.
import { describe, expect, it } from 'vitest';
import { allowedHostsFor, DEFAULT_ALLOWED_HOSTS, hostAllowed, isLoopback, parseHost } from './host-check.ts';

describe('host check', () => {
  it('applies the defaults on loopback only, a given list anywhere, and none with *', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('127.8.9.10')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(allowedHostsFor('127.0.0.1', undefined)).toEqual(DEFAULT_ALLOWED_HOSTS);
    expect(allowedHostsFor('0.0.0.0', undefined)).toBeUndefined();
    expect(allowedHostsFor('0.0.0.0', ['Tandem.Example '])).toEqual(['tandem.example']);
    expect(allowedHostsFor('127.0.0.1', ['*'])).toBeUndefined();
  });

  it('parses names, IPv6 literals and ports', () => {
    expect(parseHost('LocalHost:8080')).toEqual({ name: 'localhost', port: 8080 });
    expect(parseHost('[::1]:9')).toEqual({ name: '[::1]', port: 9 });
    expect(parseHost('127.0.0.1')).toEqual({ name: '127.0.0.1', port: undefined });
    expect(parseHost('a:b:c').port).toBeNaN();
  });

  it.each([
    ['localhost:8080', true],
    ['127.0.0.1:8080', true],
    ['[::1]:8080', true],
    ['LOCALHOST:8080', true],
    ['localhost:8081', false],
    ['localhost', false],
    ['evil.example:8080', false],
    ['localhost.evil.example:8080', false],
    ['127.0.0.1:8080@evil', false],
    [undefined, false],
  ])('Host %s on port 8080: %s', (header, allowed) => {
    expect(hostAllowed(header, DEFAULT_ALLOWED_HOSTS, 8080)).toBe(allowed);
  });

  it('a Host without a port means port 80', () => {
    expect(hostAllowed('localhost', DEFAULT_ALLOWED_HOSTS, 80)).toBe(true);
  });
});
