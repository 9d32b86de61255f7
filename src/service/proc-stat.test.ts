import { describe, expect, it } from 'vitest';
import { readProcStat } from './proc-stat';

describe('readProcStat', () => {
  it('reads this process and its main thread: same id, parent and a CPU time that only grows', () => {
    const proc = readProcStat(process.pid);
    expect(proc.pid).toBe(process.pid);
    expect(proc.ppid).toBe(process.ppid);
    expect(proc.name.length).toBeGreaterThan(0);
    const thread = readProcStat(process.pid, process.pid);
    expect(thread.pid).toBe(process.pid);
    // Busy for a moment: the main thread's CPU time is counted in both, and the thread's is part of the process's.
    const until = Date.now() + 60;
    while (Date.now() < until);
    const later = readProcStat(process.pid, process.pid);
    expect(later.cpuSeconds).toBeGreaterThanOrEqual(thread.cpuSeconds);
    expect(readProcStat('self').cpuSeconds).toBeGreaterThanOrEqual(later.cpuSeconds);
  });

  it('throws for a process or thread that does not exist', () => {
    expect(() => readProcStat(2 ** 30)).toThrow();
    expect(() => readProcStat(process.pid, 2 ** 30)).toThrow();
  });
});
