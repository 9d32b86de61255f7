import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listProcesses, staleProcessIds, stopStaleProcesses } from './stale-processes';

describe('stale engine processes', () => {
  it('picks the processes with an argument inside the folder, never itself or a sibling folder', () => {
    const processes = [
      { pid: 10, argv: ['pocketsphinx_batch', '-cepdir', '/data/scratch/takeline-pocketsphinx-a1'] },
      { pid: 11, argv: ['pocketsphinx_batch', '-cepdir', '/data/scratch-other/x'] },
      { pid: 12, argv: ['node', 'serve.ts', '/data/scratch/y'] },
      { pid: 13, argv: ['ffmpeg', '-i', '/data/recordings/a/original.flac'] },
      { pid: 14, argv: ['ls', '/data/scratch'] },
    ];
    expect(staleProcessIds(processes, '/data/scratch', 12)).toEqual([10]);
  });

  it.skipIf(!fs.existsSync('/proc/self/cmdline'))('stops a real leftover process and leaves others running', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-stale-'));
    const inside = path.join(folder, 'decoder-1');
    fs.mkdirSync(inside);
    // An idle program with an argument naming the folder stands in for a decoder; the second one is elsewhere.
    const idle = (arg: string) => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', arg], { stdio: 'ignore' });
    const leftover = idle(inside);
    const bystander = idle(os.tmpdir());
    try {
      await expect.poll(() => listProcesses().some((p) => p.pid === leftover.pid)).toBe(true);
      const exited = new Promise<string | null>((resolve) => leftover.on('exit', (_code, signal) => resolve(signal)));
      const lines: string[] = [];
      expect(stopStaleProcesses(folder, (l) => lines.push(l))).toBe(1);
      expect(await exited).toBe('SIGKILL');
      expect(lines[0]).toMatch(/stopped 1 engine process/);
      expect(bystander.exitCode).toBeNull();
    } finally {
      leftover.kill('SIGKILL');
      bystander.kill('SIGKILL');
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
