import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTreeCpuSeconds } from './tree-cpu';

describe('processTreeCpuSeconds', () => {
  it('counts a busy grandchild in its grandparent’s tree', async () => {
    // A shell whose child spins for about 0.6 s of CPU and then sleeps, so it is alive when read.
    const script = `${JSON.stringify(process.execPath)} -e "const t=Date.now(); while (Date.now()-t<600); setTimeout(()=>{}, 5000)"`;
    const shell = spawn('sh', ['-c', `${script}; true`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const cpu = processTreeCpuSeconds(shell.pid!);
      expect(cpu).toBeGreaterThan(0.4);
      expect(cpu).toBeLessThan(1.5);
    } finally {
      shell.kill('SIGKILL');
    }
  });

  it('is 0 for a process that is gone', () => {
    expect(processTreeCpuSeconds(2 ** 22 + 1)).toBe(0);
  });
});
