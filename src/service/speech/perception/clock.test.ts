import { describe, expect, it } from 'vitest';
import { clock, clockRange, clockTenths } from './clock';

describe('clock times', () => {
  it('whole seconds, and tenths', () => {
    expect(clock(3725.9)).toBe('1:02:05');
    expect(clock(27.6)).toBe('0:27');
    expect(clockTenths(27.14)).toBe('0:27.1');
    expect(clockTenths(59.96)).toBe('1:00.0');
    expect(clockTenths(3600.25)).toBe('1:00:00.3');
  });

  it('a range as it is: never collapsed to one second, a point as one time', () => {
    // As an editor saw it: "Reverb (severity 0.56): 0:27–0:27".
    expect(clockRange({ start: 27.12, end: 27.64 })).toBe('0:27.1–0:27.7');
    expect(clockRange({ start: 27.9, end: 28.1 })).toBe('0:27.9–0:28.1');
    expect(clockRange({ start: 27.3, end: 27.3 })).toBe('0:27.3');
    expect(clockRange({ start: 27.3, end: 27.32 })).toBe('0:27.3');
    expect(clockRange({ start: 27.3, end: 27.2 })).toBe('0:27.3'); // an end before its start is a point
    // Two seconds and more: whole seconds holding the range.
    expect(clockRange({ start: 61, end: 75.2 })).toBe('1:01–1:16');
    expect(clockRange({ start: 61.7, end: 63.7 })).toBe('1:01–1:04');
    expect(clockRange({ start: 9, end: 13 })).toBe('0:09–0:13');
  });
});
