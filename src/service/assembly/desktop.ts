import { ensureStudioKey } from '../auth/studio-key';
import type { Persistence } from '../persistence';
import { buildCore, tidyAtStart, type CoreInput } from './core';
import { buildHttp, type HttpOptions } from './http';
import { buildJobEngines, registerJobHandlers } from './jobs';
import { startOperations } from './operations';
import { runningService, type RunningService } from './roles';

/**
 * The desktop (and `npm run serve` without a team database): core + HTTP + an in-process worker over the
 * embedded SQLite file. A request's heavy work (a transcription through the OpenAI route, a script alignment)
 * runs in this process.
 */
export async function startDesktop(
  input: CoreInput & { persistence: Persistence },
  releaseLock: () => void,
  options: Pick<HttpOptions, 'whisperCatalogue'>,
): Promise<RunningService> {
  const core = await buildCore(input);
  const engines = buildJobEngines(core);
  const http = await buildHttp(core, { ...options, transcription: engines.transcription });
  await tidyAtStart(core);
  // Crash recovery of the records is the desktop's: its own process ran whatever was running.
  await core.database.sessions.recoverInterrupted();
  const apiKey = await ensureStudioKey(core.keys, core.layout.secrets, core.log);
  registerJobHandlers(core, engines);
  await core.analysisStore.recoverInterrupted();
  await core.dubbing.recover();
  const server = await http.listen();
  const closeOperations = await startOperations(core, input.metrics.config);
  await core.jobs.start();
  return runningService({ core, persistence: input.persistence, releaseLock, http: { part: http, server }, closers: [closeOperations, engines.close] }, apiKey);
}
