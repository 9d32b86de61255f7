/**
 * glibc's heap settings for the standalone service and worker (`npm run serve`, `npm run worker`). glibc
 * raises its mmap threshold each time a large block is freed, so later blocks of that size (audio blocks,
 * chunks, model buffers) come from the heap and stay there once freed, spread over one arena per thread that
 * allocated them. A fixed threshold (glibc's initial 128 KiB) hands large blocks back when freed; two arenas
 * keep the pool threads and the diarizer's thread from spreading small blocks over many. On 13.8 min of
 * long/ (bench/memory, side by side in one run) the service's own peak went 405 → 357 MB while transcribing,
 * 401 → 348 MB while the analysis ran, and 306 → 220 MB after. The analysis process has its own, stricter
 * settings (analysis/analysis-job.ts).
 */
export const SERVICE_HEAP_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2' };

/**
 * glibc reads these settings once, when the process starts, so a process started without them replaces
 * itself (same pid, same arguments) with one that has them, before it loads anything else. Values the user
 * set are kept; `TAKELINE_HEAP_SETTINGS=off` leaves the process as it was started. Only on Linux with glibc
 * (musl ignores them) and where Node can replace a process (`process.execve`, Node ≥ 22.15).
 */
export function restartWithHeapSettings(env: NodeJS.ProcessEnv = process.env): void {
  if (env.TAKELINE_HEAP_SETTINGS === 'off' || process.platform !== 'linux' || typeof process.execve !== 'function') return;
  if (Object.keys(SERVICE_HEAP_ENV).every((name) => env[name] !== undefined)) return;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (!report?.header?.glibcVersionRuntime) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...SERVICE_HEAP_ENV, ...env });
}
