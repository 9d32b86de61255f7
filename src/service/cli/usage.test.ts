import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isUsageError, runCommand, UsageError } from './usage';

class NotThere extends Error {}
class BadName extends Error {}

/** Runs a command as the CLIs do: its exit code and what it wrote to stderr. */
async function run(main: () => Promise<number>): Promise<{ code: typeof process.exitCode; stderr: string }> {
  let stderr = '';
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    await runCommand(main, 'usage: try it', { usageErrors: [BadName], failures: [NotThere] });
    return { code: process.exitCode, stderr };
  } finally {
    write.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('runCommand', () => {
  it("exits with what the command returns, 2 with the usage for the caller's mistakes, 1 with the message for failures", async () => {
    expect(await run(async () => 0)).toEqual({ code: 0, stderr: '' });
    expect(await run(async () => 3)).toEqual({ code: 3, stderr: '' });
    expect(await run(async () => Promise.reject(new UsageError('no command given')))).toEqual({ code: 2, stderr: 'no command given\nusage: try it\n' });
    expect(await run(async () => Promise.reject(new BadName('"x y" is not a user name')))).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: try it') });
    // parseArgs' own errors (an unknown option) are usage errors too.
    const unknown = await run(async () => parseArgs({ args: ['--nope'], strict: true, options: {} }) && 0);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--nope[\s\S]*usage: try it/);
    expect(await run(async () => Promise.reject(new NotThere('no user "vera"')))).toEqual({ code: 1, stderr: 'no user "vera"\n' });
  });

  it('throws anything else (a fault shows its stack), leaving the exit code alone', async () => {
    await expect(runCommand(async () => Promise.reject(new TypeError('boom')), 'usage')).rejects.toThrow('boom');
    expect(process.exitCode).toBeUndefined();
    expect(isUsageError(new TypeError('x'))).toBe(false);
    expect(isUsageError(null)).toBe(false);
  });
});
