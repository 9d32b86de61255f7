import path from 'node:path';
import { afterEach } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { openDatabase, type Db } from '../../storage/database';
import { SqliteSql } from '../../storage/sql/sqlite-sql';
import { SqlWhisperModelStore } from '../../storage/whisper-model-store';

const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A team's Whisper model store on a database of its own (SQLite), closed after the test. */
export function teamWhisperStore(): { sql: SqliteSql; store: SqlWhisperModelStore } {
  const db = openDatabase(path.join(tempDir('takeline-team-whisper-'), 'takeline.db'));
  open.push(db);
  const sql = new SqliteSql(db);
  return { sql, store: new SqlWhisperModelStore(sql) };
}
