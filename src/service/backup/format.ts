import { z } from 'zod';
import type { Row } from '../storage/backup-tables';

/**
 * A backup folder:
 *
 *   manifest.json          written last: a folder without it is an unfinished backup
 *   tables/<table>.jsonl   the table's rows, one JSON object per line (bytes as {"$bytes": base64})
 *   blobs/<key>            each stored file under its storage key
 *
 * Rows are portable data, so a backup of a desktop's SQLite restores into a team's PostgreSQL and back.
 */
export const BACKUP_FORMAT = 'takeline-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const LeftOut = z.object({
  kind: z.enum(['recording', 'adaptation', 'model']),
  /** The recording's (session's) id, the speaker's id, or the model's name. */
  id: z.string(),
  /** The files its rows name that were gone when the backup copied them. */
  missing: z.array(z.string()),
});
export type LeftOut = z.infer<typeof LeftOut>;

export const Manifest = z.object({
  format: z.literal(BACKUP_FORMAT),
  format_version: z.literal(BACKUP_FORMAT_VERSION),
  created_at: z.string(),
  /** The schema the rows were read in (its migration number); a restore migrates older ones forward. */
  schema_version: z.number().int().nonnegative(),
  source: z.object({ database: z.enum(['sqlite', 'postgres']), storage: z.string() }),
  /** Parents before the tables whose rows name theirs: the order a restore inserts them in. */
  tables: z.array(z.object({ name: z.string().regex(/^[a-z_][a-z0-9_]*$/), rows: z.number().int().nonnegative(), sha256: Sha256 })),
  blobs: z.array(z.object({ key: z.string(), size: z.number().int().nonnegative(), sha256: Sha256 })),
  /** What the rows name but the backup could not copy (deleted after the snapshot): a restore leaves it out. */
  left_out: z.array(LeftOut),
});
export type Manifest = z.infer<typeof Manifest>;

export const tableFile = (table: string) => `tables/${table}.jsonl`;
export const blobFile = (key: string) => `blobs/${key}`;

/** One row as a line of JSON: bytes (SQLite BLOB, PostgreSQL BYTEA) become {"$bytes": base64}. */
export function encodeRow(row: Row): string {
  return JSON.stringify(row, (_key, value: unknown) => {
    // JSON.stringify has already turned a Buffer into {type: 'Buffer', data: [...]} by the time it gets here.
    if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
      return { $bytes: Buffer.from((value as { data: number[] }).data).toString('base64') };
    }
    return value;
  });
}

/** The row of one line; no column holds a JSON object, so an object is bytes. */
export function decodeRow(line: string): Row {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  const row: Row = {};
  for (const [column, value] of Object.entries(parsed)) {
    if (value !== null && typeof value === 'object') {
      const bytes = (value as { $bytes?: unknown }).$bytes;
      if (typeof bytes !== 'string') throw new Error(`Column ${column} holds an object that is not bytes.`);
      row[column] = Buffer.from(bytes, 'base64');
    } else if (typeof value === 'string' || typeof value === 'number' || value === null) row[column] = value;
    else if (typeof value === 'boolean') row[column] = value ? 1 : 0;
    else throw new Error(`Column ${column} holds ${typeof value}.`);
  }
  return row;
}
