/**
 * The value after `name` on a bench's command line (`--every 2` → '2'); undefined when the flag is absent.
 * A flag given last with no value is refused rather than read as absent, so a typo never runs the defaults.
 */
export function flagValue(name: string, argv: readonly string[] = process.argv): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  if (i + 1 >= argv.length) throw new Error(`${name} needs a value`);
  return argv[i + 1];
}
