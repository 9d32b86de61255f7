import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from './postgres';

/** One throwaway PostgreSQL server for a test file: started before its tests, removed after them. */
export function postgresPerFile(): () => ThrowawayPostgres {
  let server: ThrowawayPostgres | null = null;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('postgresPerFile: the server exists only inside a test');
    return server;
  };
}
