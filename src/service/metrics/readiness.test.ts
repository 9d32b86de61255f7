import { describe, expect, it } from 'vitest';
import { readiness, type CheckResult } from './readiness';

describe('readiness', () => {
  it('is ready when every check answers, and names each failed one with a reason that leaks no address', async () => {
    let storageUp = true;
    const changes: Array<[string, CheckResult['status']]> = [];
    const check = readiness(
      {
        database: async () => {},
        storage: async () => {
          if (!storageUp) throw Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:7480'), { code: 'ECONNREFUSED' });
        },
      },
      { onChange: (name, result) => changes.push([name, result.status]) },
    );
    const ready = await check();
    expect(ready.status).toBe('ready');
    expect(ready.failed).toEqual([]);
    expect(ready.checks.database!.status).toBe('ok');
    expect(changes).toEqual([]);

    storageUp = false;
    const down = await check();
    expect(down).toMatchObject({ status: 'unavailable', failed: ['storage'], checks: { database: { status: 'ok' }, storage: { status: 'failed', error: 'ECONNREFUSED' } } });
    expect(JSON.stringify(down)).not.toContain('10.1.2.3');
    await check();
    storageUp = true;
    expect((await check()).status).toBe('ready');
    // The log hears of each change once, not of every probe.
    expect(changes).toEqual([
      ['storage', 'failed'],
      ['storage', 'ok'],
    ]);
  });

  it('fails a check that does not answer in time, without waiting for it', async () => {
    const check = readiness({ database: () => new Promise(() => {}), storage: async () => {} }, { timeoutMs: 50 });
    const started = Date.now();
    const result = await check();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toMatchObject({ status: 'unavailable', failed: ['database'], checks: { database: { status: 'failed', error: 'no answer within 50 ms' } } });
  });

  it('shares one run among probes that arrive together', async () => {
    let runs = 0;
    const check = readiness({
      database: async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 20));
      },
    });
    const [a, b, c] = await Promise.all([check(), check(), check()]);
    expect(runs).toBe(1);
    expect(a).toBe(b);
    expect(b).toBe(c);
    await check();
    expect(runs).toBe(2);
  });
});
