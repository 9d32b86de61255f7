/**
 * Named points right after a handler's commit points, where a test makes the process "die": `hit` does nothing
 * unless a test armed the point, and then throws a `SimulatedCrash`, which the runner treats as the process
 * ending there (it records nothing more: the job stays `running` for the next start or delivery to recover).
 */
export class SimulatedCrash extends Error {
  constructor(readonly point: string) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/** Armed points: how many more hits pass before the crash. */
const armed = new Map<string, number>();

export const crashPoints = {
  hit(point: string): void {
    const passes = armed.get(point);
    if (passes === undefined) return;
    if (passes > 0) {
      armed.set(point, passes - 1);
      return;
    }
    armed.delete(point);
    throw new SimulatedCrash(point);
  },
  /** Tests only: the `passes + 1`-th hit of `point` crashes (once). */
  arm(point: string, passes = 0): void {
    armed.set(point, passes);
  },
  /** Tests only: whether `point` is armed still (it has not crashed yet). */
  isArmed(point: string): boolean {
    return armed.has(point);
  },
  disarm(): void {
    armed.clear();
  },
};

export function isSimulatedCrash(error: unknown): error is SimulatedCrash {
  return error instanceof SimulatedCrash;
}
