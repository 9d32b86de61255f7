import type { Persistence } from '../persistence';
import { buildCore, teamNodeAtStart, type Core, type CoreInput } from './core';
import { buildJobEngines, registerJobHandlers } from './jobs';
import { QueueWorker } from '../queue/queue-worker';
import { startOperations } from './operations';
import { stopper, type RunningWorker } from './roles';

/**
 * A team's worker: core + jobs. It serves no HTTP: it runs the jobs the queue engine (pg-boss) delivers, one at
 * a time (its heavy work already fills a core; run more workers to scale).
 */
export async function startWorker(input: CoreInput & { persistence: Persistence & { queue: NonNullable<Persistence['queue']> } }, releaseLock: () => void): Promise<RunningWorker> {
  const delivered = new QueueWorker();
  const core = await buildCore(input, { worker: delivered, alignCheckpoints: true });
  const engines = buildJobEngines(core);
  await atStart(core);
  const closeOperations = await startOperations(core, input.metrics.config);
  registerJobHandlers(core, engines);
  await core.jobs.start();
  await input.persistence.queue.work((id) => delivered.runDelivered(id), 1);
  return { stop: stopper({ core, persistence: input.persistence, releaseLock, closers: [closeOperations, engines.close] }) };
}

/** What a worker does at start, before it takes jobs. */
async function atStart(core: Core): Promise<void> {
  await teamNodeAtStart(core);
}
