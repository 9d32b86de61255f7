import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processCpuSeconds, watchdogVerdict } from './watchdog';

describe('the decoder watchdog', () => {
  it('gives a decoder that progresses slowly (a busy machine) another period', () => {
    expect(watchdogVerdict({ atStart: 1, atLastCheck: 1, now: 2.4 }, 72)).toBe('wait');
    expect(watchdogVerdict({ atStart: 1, atLastCheck: 30, now: 31 }, 72)).toBe('wait');
  });

  it('fails a decoder that made no progress since its last look (stuck waiting)', () => {
    expect(watchdogVerdict({ atStart: 1, atLastCheck: 1, now: 1.01 }, 72)).toBe('fail');
    expect(watchdogVerdict({ atStart: 1, atLastCheck: 5, now: 5 }, 72)).toBe('fail');
  });

  it('fails a decoder that used the whole limit in CPU on one utterance (spinning)', () => {
    expect(watchdogVerdict({ atStart: 1, atLastCheck: 40, now: 73 }, 72)).toBe('fail');
  });

  it('fails on the wall-clock limit alone where CPU cannot be read', () => {
    expect(watchdogVerdict(null, 72)).toBe('fail');
  });

  it('reads a process CPU time: a busy child gains it, a stopped one does not, an ended one has none', async () => {
    const child = spawn(process.execPath, ['-e', 'for(;;){}']);
    try {
      await new Promise((r) => setTimeout(r, 600));
      const busy = processCpuSeconds(child.pid!)!;
      expect(busy).toBeGreaterThan(0);
      child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, 100));
      const stopped = processCpuSeconds(child.pid!)!;
      await new Promise((r) => setTimeout(r, 500));
      expect(processCpuSeconds(child.pid!)).toBe(stopped);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(processCpuSeconds(child.pid!)).toBeNull();
  });
});
