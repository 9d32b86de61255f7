import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * A fingerprint of a data folder: every file's path, size and modification time (the database files
 * aside) and a digest of every table's rows. Two equal fingerprints mean nothing was stored or removed.
 */
export class DataSnapshot {
  private db: Database.Database | null = null;

  constructor(private readonly root: string) {}

  private database(): Database.Database {
    // Read-only beside the running service (WAL lets it read while the service writes).
    return (this.db ??= new Database(path.join(this.root, 'takeline.db'), { readonly: true, fileMustExist: true }));
  }

  /** True when no job is queued or running, so nothing changes the folder by itself. */
  idle(): boolean {
    const row = this.database().prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued','running')").get() as { n: number };
    return row.n === 0;
  }

  /** The fingerprint's lines: one per file and one digest per table. */
  fingerprint(): string[] {
    const lines: string[] = [];
    const hash = { update: (line: string) => lines.push(line.trimEnd()) };
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        const rel = path.relative(this.root, full);
        if (/^takeline\.db/.test(rel)) continue;
        // The engines' working space (decoders started or stopped by earlier requests, emptied at start):
        // nothing stored lives there.
        if (rel === 'scratch' || rel.startsWith(`scratch${path.sep}`)) continue;
        if (entry.isDirectory()) {
          hash.update(`d ${rel}\n`);
          walk(full);
        } else {
          const stat = fs.statSync(full, { throwIfNoEntry: false });
          if (stat) hash.update(`f ${rel} ${stat.size} ${stat.mtimeMs}\n`);
        }
      }
    };
    walk(this.root);
    const db = this.database();
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('browser_sessions', 'sign_in_tokens') ORDER BY name").all() as Array<{ name: string }>;
    for (const { name } of tables) {
      const digest = crypto.createHash('sha256');
      let rows = 0;
      for (const row of db.prepare(`SELECT * FROM "${name}"`).iterate()) {
        digest.update(JSON.stringify(row, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v)));
        rows++;
      }
      hash.update(`t ${name} ${rows} ${digest.digest('hex').slice(0, 16)}`);
    }
    return lines;
  }

  /** Lines only in `before` (-) or only in `after` (+). */
  static diff(before: string[], after: string[]): string[] {
    const a = new Set(before);
    const b = new Set(after);
    return [...before.filter((l) => !b.has(l)).map((l) => `- ${l}`), ...after.filter((l) => !a.has(l)).map((l) => `+ ${l}`)];
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
}
