import { restartWithHeapSettings } from './heap-settings';

// Before anything else loads: this may replace the process with one that has glibc's heap settings.
restartWithHeapSettings();

/** `npm run serve`: the service headless on 127.0.0.1, configured by environment. */
async function main() {
  const { startService } = await import('../server');
  const service = await startService();
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`takeline: ${signal}, stopping\n`);
    service.stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`takeline: stop failed: ${error}\n`);
        process.exit(1);
      },
    );
  };
  // Before the listening line: whoever reads it may signal at once.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.stdout.write(`takeline listening on ${service.url}\n`);
  process.stdout.write(`takeline studio sign-in link (one-time): ${await service.signInUrl()}\n`);
}

main().catch(async (error) => {
  const { ConfigError } = await import('../config');
  process.stderr.write(`takeline: ${error instanceof ConfigError || error?.code === 'EADDRINUSE' ? error.message : (error?.stack ?? error)}\n`);
  process.exit(1);
});
