/** A mistake on the command line: the command prints its message and its usage, and exits with 2. */
export class UsageError extends Error {}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The caller's mistake: a `UsageError`, one of `also`, or parseArgs' own (an unknown option, a missing value). */
export function isUsageError(error: unknown, also: readonly ErrorClass[] = []): boolean {
  if (error instanceof UsageError || also.some((kind) => error instanceof kind)) return true;
  return Boolean((error as { code?: unknown } | null)?.code?.toString().startsWith('ERR_PARSE_ARGS'));
}

export interface CommandOptions {
  /** More errors that are the caller's mistake (exit 2 with the usage). */
  usageErrors?: readonly ErrorClass[];
  /** Errors that say what went wrong well enough on their own (exit 1 with their message). */
  failures?: readonly ErrorClass[];
}

/**
 * Runs a command's `main` and sets the exit code: what it returns; 2 with the message and `usage` for a usage
 * error; 1 with the message for one of `failures`. Anything else is a fault and is thrown (its stack printed).
 */
export function runCommand(main: () => Promise<number>, usage: string, options: CommandOptions = {}): Promise<void> {
  return main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (isUsageError(error, options.usageErrors)) {
        process.stderr.write(`${(error as Error).message}\n${usage}\n`);
        process.exitCode = 2;
        return;
      }
      if (!options.failures?.some((kind) => error instanceof kind)) throw error;
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
