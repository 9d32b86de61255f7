import pg from 'pg';
import { ConfigError, loadConfig } from '../config';
import { DataLayout } from '../storage/files';
import { openDatabase } from '../storage/database';
import { migratePostgres } from '../storage/postgres/migrate';

/**
 * `npm run migrate`: brings the schema up to date. With TAKELINE_DATABASE_URL the team's PostgreSQL (safe
 * while other nodes start: they take turns), otherwise the embedded SQLite database in the data folder.
 */
async function main(): Promise<number> {
  if (process.argv.length > 2) {
    process.stderr.write('usage: npm run migrate (configured by TAKELINE_DATABASE_URL or TAKELINE_DATA_DIR; takes no arguments)\n');
    return 2;
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 1 });
    try {
      const applied = await migratePostgres(pool);
      process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'the database is up to date\n');
    } finally {
      await pool.end();
    }
    return 0;
  }
  const layout = new DataLayout(config.dataDir);
  layout.ensure();
  // Opening the database applies what is missing.
  openDatabase(layout.database).close();
  process.stdout.write(`the embedded database in ${config.dataDir} is up to date\n`);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`takeline migrate: ${error instanceof ConfigError ? error.message : ((error as Error)?.message ?? String(error))}\n`);
    process.exitCode = 1;
  },
);
