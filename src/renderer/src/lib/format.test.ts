import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, speakerColor, suggestKey } from './format';

describe('format', () => {
  it('formats sizes and durations', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MB');
    expect(formatDuration(65)).toBe('1:05');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(null)).toBe('—');
  });

  it('suggests valid project keys', () => {
    expect(suggestKey('  Café Interviews 2024! ')).toBe('cafe-interviews-2024');
    expect(suggestKey('x'.repeat(80))).toHaveLength(64);
  });

  it('colours speakers stably by number', () => {
    expect(speakerColor('S1')).toBe(speakerColor('S9'));
    expect(speakerColor('S1')).not.toBe(speakerColor('S2'));
    expect(speakerColor('S2', 0.5)).toMatch(/^rgba\(/);
  });
});
