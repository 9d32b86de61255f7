import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { backgroundNiceness, backgroundNiceSteps, lowerProcessPriority, threadIdFromLink } from './background-priority';

describe('background priority', () => {
  it('reads TAKELINE_BACKGROUND_NICE: default 10, 0 is off, anything outside 0–19 or not an integer is the default', () => {
    expect(backgroundNiceSteps(undefined)).toBe(10);
    expect(backgroundNiceSteps('')).toBe(10);
    expect(backgroundNiceSteps('0')).toBe(0);
    expect(backgroundNiceSteps(' 5 ')).toBe(5);
    expect(backgroundNiceSteps('19')).toBe(19);
    for (const bad of ['20', '-1', '2.5', 'low']) expect(backgroundNiceSteps(bad)).toBe(10);
  });

  it('places background work below the service, clamped to 19', () => {
    expect(backgroundNiceness(0, 10)).toBe(10);
    expect(backgroundNiceness(10, 10)).toBe(19);
    expect(backgroundNiceness(-5, 3)).toBe(-2);
  });

  it('parses the thread id of /proc/thread-self', () => {
    expect(threadIdFromLink('1234/task/5678')).toBe(5678);
    expect(threadIdFromLink('self')).toBeNull();
    expect(threadIdFromLink('1234/task/')).toBeNull();
  });

  it.runIf(process.platform === 'linux')('lowers a child process', async () => {
    const child = spawn('sleep', ['5']);
    try {
      lowerProcessPriority(child.pid, { TAKELINE_BACKGROUND_NICE: '3' });
      expect(os.getPriority(child.pid!)).toBe(backgroundNiceness(os.getPriority(process.pid), 3));
    } finally {
      child.kill();
    }
  });
});
