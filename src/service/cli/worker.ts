import { restartWithHeapSettings } from './heap-settings';

// Before anything else loads: this may replace the process with one that has glibc's heap settings.
restartWithHeapSettings();

/**
 * `npm run worker`: a team server's worker. It takes jobs (transcription, analysis, revoice, dub preparation,
 * speaker adaptation and profiles) from the team's queue and serves no HTTP. Configured like `npm run serve`.
 */
async function main() {
  // Everything a worker does is background work (TAKELINE_BACKGROUND_NICE; 0 keeps it at the caller's priority).
  const { lowerOwnPriority } = await import('../jobs/background-priority');
  const { backgroundNice } = await import('../config');
  lowerOwnPriority(backgroundNice(process.env));
  const { startService } = await import('../server');
  const worker = await startService({ role: 'worker' });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`takeline worker: ${signal}, stopping (its running job goes back to the queue)\n`);
    worker.stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`takeline worker: stop failed: ${error}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.stdout.write('takeline worker ready\n');
}

main().catch(async (error) => {
  const { ConfigError } = await import('../config');
  process.stderr.write(`takeline worker: ${error instanceof ConfigError ? error.message : (error?.stack ?? error)}\n`);
  process.exit(1);
});
