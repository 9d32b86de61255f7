import { spawn } from 'node:child_process';

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs a program (a voice engine, ffmpeg) to completion: stdin written whole, stdout collected. A non-zero exit, a
 * timeout or an abort rejects (the program is killed), with the tail of its stderr in the message.
 */
export function runProgram(
  program: string,
  args: string[],
  options: { stdin?: string | Buffer; signal?: AbortSignal; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env });
    const out: Buffer[] = [];
    let stderr = '';
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        reject(error);
      } else {
        resolve({ stdout: Buffer.concat(out), stderr });
      }
    };
    const onAbort = () => finish(options.signal!.reason instanceof Error ? options.signal!.reason : new Error('aborted'));
    const timer = setTimeout(() => finish(new Error(`${program} took longer than ${options.timeoutMs} ms`)), options.timeoutMs ?? 120_000);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-4000);
    });
    child.on('error', (error) => finish(new Error(`could not run ${program}: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) finish(null);
      else finish(new Error(`${program} exited with code ${code}: ${stderr.trim().split('\n').pop() ?? ''}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}
