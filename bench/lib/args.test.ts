import { describe, expect, it } from 'vitest';
import { flagValue } from './args';

describe('flagValue', () => {
  const argv = ['node', 'run.ts', '--every', '2', '--gain-db', '-30', '--verbose'];

  it('reads the value after the flag, a negative number included', () => {
    expect(flagValue('--every', argv)).toBe('2');
    expect(flagValue('--gain-db', argv)).toBe('-30');
  });

  it('is undefined for a flag that is absent', () => {
    expect(flagValue('--half', argv)).toBeUndefined();
  });

  it('refuses a flag given last with no value', () => {
    expect(() => flagValue('--verbose', argv)).toThrow('--verbose needs a value');
  });
});
