import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { backgroundNiceness, backgroundNiceSteps, deferredNiceness, lowerProcessPriority, threadIdFromLink } from './background-priority';

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

  it('places deferred work (what a kept call leaves) below the background work a request waits for', () => {
    expect(deferredNiceness(0, 10)).toBe(19);
    expect(deferredNiceness(0, 3)).toBe(6);
    expect(deferredNiceness(0, 3)).toBeGreaterThan(backgroundNiceness(0, 3));
    expect(deferredNiceness(12, 10)).toBe(19);
  });

  it('parses the thread id of /proc/thread-self', () => {
    expect(threadIdFromLink('1234/task/5678')).toBe(5678);
    expect(threadIdFromLink('self')).toBeNull();
    expect(threadIdFromLink('1234/task/')).toBeNull();
  });

  it.runIf(process.platform === 'linux')('lowers a child process', async () => {
    const child = spawn('sleep', ['5']);
    try {
      lowerProcessPriority(child.pid, 3);
      expect(os.getPriority(child.pid!)).toBe(backgroundNiceness(os.getPriority(process.pid), 3));
    } finally {
      child.kill();
    }
  });

  it.runIf(process.platform === 'linux')('lowers a deferred child below a request\'s', async () => {
    const request = spawn('sleep', ['5']);
    const deferred = spawn('sleep', ['5']);
    try {
      lowerProcessPriority(request.pid, 3);
      lowerProcessPriority(deferred.pid, 3, true);
      const own = os.getPriority(process.pid);
      expect(os.getPriority(deferred.pid!)).toBe(deferredNiceness(own, 3));
      expect(os.getPriority(deferred.pid!)).toBeGreaterThan(os.getPriority(request.pid!));
    } finally {
      request.kill();
      deferred.kill();
    }
  });

  it.runIf(process.platform === 'linux')('lowers every thread of a child that started threads before it was lowered', async () => {
    // A Node child with its platform and pool threads and a worker thread running, as the analysis process has
    // by the time its parent's call lands on a loaded machine.
    const script = `
      const { Worker } = require('node:worker_threads');
      require('node:fs').readFile(__filename, () => {});
      const w = new Worker('setInterval(() => {}, 1000)', { eval: true });
      w.on('online', () => console.log('ready'));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      const threads = () => fs.readdirSync(`/proc/${child.pid}/task`).map(Number);
      const own = os.getPriority(process.pid);
      expect(threads().length).toBeGreaterThan(3);
      lowerProcessPriority(child.pid, 3, true);
      // Read as a test would from outside: /proc/<pid>/task/<tid>/stat, field 19 (nice).
      const niceOf = (tid: number) => {
        const stat = fs.readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      expect(new Set(threads().map(niceOf))).toEqual(new Set([deferredNiceness(own, 3)]));
    } finally {
      child.kill();
    }
  });

  it.runIf(process.platform === 'linux')('lowers every thread of its own process, and threads made after follow', () => {
    // In a process of its own: lowering the test runner would outlast the test.
    const module = path.join(__dirname, 'background-priority.ts');
    const script = `
      const os = require('node:os'); const fs = require('node:fs'); const { Worker } = require('node:worker_threads');
      const { lowerOwnPriority, backgroundNiceSteps } = require(${JSON.stringify(module)});
      const niceness = () => fs.readdirSync('/proc/self/task').map((tid) => os.getPriority(Number(tid)));
      const before = niceness();
      lowerOwnPriority(backgroundNiceSteps(process.env.TAKELINE_BACKGROUND_NICE));
      const after = niceness();
      const w = new Worker('setTimeout(() => {}, 200)', { eval: true });
      w.on('online', () => { console.log(JSON.stringify({ before, after, later: niceness() })); w.terminate(); });
    `;
    const run = (steps: string) =>
      JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, TAKELINE_BACKGROUND_NICE: steps }, encoding: 'utf8' })) as Record<'before' | 'after' | 'later', number[]>;
    const own = os.getPriority(process.pid);
    const lowered = run('4');
    expect(lowered.before.length).toBeGreaterThan(1);
    expect(new Set(lowered.before)).toEqual(new Set([own]));
    expect(new Set(lowered.after)).toEqual(new Set([backgroundNiceness(own, 4)]));
    expect(lowered.later.length).toBeGreaterThan(lowered.after.length);
    expect(new Set(lowered.later)).toEqual(new Set([backgroundNiceness(own, 4)]));
    const off = run('0');
    expect(new Set(off.after)).toEqual(new Set([own]));
  });
});
