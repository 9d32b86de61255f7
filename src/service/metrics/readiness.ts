import type { z } from 'zod';
import type { Readiness as ReadinessSchema, ReadinessCheck } from '../../shared/schemas/operations';

/** What a node needs to serve: a check per dependency, which resolves when it answers and throws when not. */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/** A check's answer: its error is a code or a short reason, never addresses or credentials (the log has the whole message). */
export type CheckResult = z.infer<typeof ReadinessCheck>;
export type Readiness = z.infer<typeof ReadinessSchema>;

/** A check that has not answered within this is failed: a load balancer should not wait on a hung connection. */
export const DEFAULT_CHECK_TIMEOUT_MS = 2000;

class TimedOut extends Error {}

function reason(error: unknown, timeoutMs: number): string {
  if (error instanceof TimedOut) return `no answer within ${timeoutMs} ms`;
  const code = (error as { code?: unknown; name?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== 'Error' ? name : 'error';
}

/**
 * Runs the checks side by side, each bounded by `timeoutMs`; concurrent calls share one run, so a busy load
 * balancer's probes cost one round per dependency at a time. `onChange` hears when a check's status changes
 * (with the whole error), so the log names the cause once, not at every probe.
 */
export function readiness(checks: ReadinessChecks, options: { timeoutMs?: number; onChange?: (name: string, result: CheckResult, error?: unknown) => void } = {}) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const last = new Map<string, CheckResult['status']>();
  let running: Promise<Readiness> | null = null;

  const one = async (name: string, check: () => Promise<unknown>): Promise<[string, CheckResult]> => {
    const start = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const elapsed = () => Math.round((performance.now() - start) * 10) / 10;
    let result: CheckResult;
    let failure: unknown;
    try {
      await Promise.race([check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new TimedOut()), timeoutMs)))]);
      result = { status: 'ok', ms: elapsed() };
    } catch (error) {
      failure = error;
      result = { status: 'failed', ms: elapsed(), error: reason(error, timeoutMs) };
    } finally {
      clearTimeout(timer);
    }
    if (last.get(name) !== result.status) {
      // The first answer is news only when it is a failure.
      if (last.has(name) || result.status === 'failed') options.onChange?.(name, result, failure);
      last.set(name, result.status);
    }
    return [name, result];
  };

  const run = async (): Promise<Readiness> => {
    const results = Object.fromEntries(await Promise.all(Object.entries(checks).map(([name, check]) => one(name, check))));
    const failed = Object.keys(results).filter((name) => results[name]!.status === 'failed');
    return { status: failed.length === 0 ? 'ready' : 'unavailable', failed, checks: results };
  };

  return (): Promise<Readiness> =>
    (running ??= run().finally(() => {
      running = null;
    }));
}
