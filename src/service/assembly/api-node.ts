import { MIGRATIONS } from '../storage/migrations';
import { ANALYSIS_VERSION } from '../analysis/stages';
import { buildCore, sharedEtagEpoch, teamNodeAtStart, type CoreInput } from './core';
import { buildHttp, type HttpOptions } from './http';
import { startOperations } from './operations';
import { runningService, type RunningService } from './roles';
import { watchHandOvers } from '../queue/hand-over-watch';
import { SqlJobStore } from '../storage/job-store';

/**
 * A team's API node: core + HTTP. It queues work and follows it; its workers run it, so it builds no
 * recognizer and registers no job handler. Its HTTP extras go here, next to `buildHttp`.
 */
export async function startApiNode(input: CoreInput, releaseLock: () => void, options: Pick<HttpOptions, 'whisperCatalogue'>): Promise<RunningService> {
  const core = await buildCore(input, { worker: null });
  // A team's API nodes share their ETags, so a poll may go to any node.
  const etagEpoch = await sharedEtagEpoch(core.secrets, MIGRATIONS.at(-1)!.version, ANALYSIS_VERSION);
  const http = await buildHttp(core, { ...options, etagEpoch, transcription: null });
  await teamNodeAtStart(core);
  const server = await http.listen();
  const closeOperations = await startOperations(core, input.metrics.config);
  await core.jobs.start();
  // A job whose worker died reads as waiting for a worker until another takes it.
  const { queue } = input.persistence;
  const closeWatch = queue
    ? watchHandOvers({ store: new SqlJobStore(core.sql), awaitingWorker: (ids) => queue.awaitingWorker(ids), runner: core.jobs, log: core.log })
    : async () => {};
  return runningService({ core, persistence: input.persistence, releaseLock, http: { part: http, server }, closers: [closeOperations, closeWatch] }, null);
}
