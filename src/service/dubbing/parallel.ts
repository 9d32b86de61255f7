/**
 * Lines rendered at once within a revoice or a takes job, unless configured (ServiceConfig.dubRenderParallel,
 * TAKELINE_DUB_RENDER_PARALLEL). A rendering spends most of its time outside this process's JavaScript (the
 * synthesizer process, ffmpeg's resampler, the aligner), so two overlap well on two cores; more would only queue
 * behind each other there.
 */
export const DEFAULT_RENDER_PARALLEL = 2;

/**
 * Runs `work` over `items`, at most `limit` at a time, in order of the items; resolves when all are done
 * and rejects with the first failure (after the ones running have settled, so nothing is left writing).
 */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}
