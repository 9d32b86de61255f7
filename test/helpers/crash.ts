import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Helpers for kill -9 tests and the reliability bench: what must hold after a crash and a restart. */

export function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(typeof data === 'string' ? fs.readFileSync(data) : data).digest('hex');
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 120_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads the data folder's database read-only (the service may be running or dead). */
export function inspectDatabase<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(path.join(dataDir, 'takeline.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export function integrityCheck(dataDir: string): string {
  return inspectDatabase(dataDir, (db) => (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; '));
}

/** Temporary files anywhere in the data folder (uploads in flight, atomic writes, partial revisions). */
export function temporaryFiles(dataDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // scratch holds the running engines' working files (emptied at start-up; crash-resume.test.ts checks that).
        if (!['models', 'scratch'].includes(path.relative(dataDir, full))) walk(full);
      } else if (/\.(tmp|part)$/.test(entry.name) || path.relative(dataDir, dir) === 'uploads') {
        found.push(path.relative(dataDir, full));
      }
    }
  };
  walk(dataDir);
  return found;
}

/**
 * Starts a multipart upload and streams it slowly, so the service can be killed mid-stream. Resolves
 * once `sent` bytes have gone out; the request is left hanging (the kill ends it).
 */
export function slowUpload(url: string, key: string, body: Buffer, contentType: string, sentBeforePause: number): Promise<http.ClientRequest> {
  return new Promise((resolve) => {
    const target = new URL(`${url}/v1/speech/transcriptions`);
    const req = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType, 'Content-Length': body.length },
    });
    req.on('error', () => undefined);
    req.write(body.subarray(0, sentBeforePause), () => resolve(req));
  });
}
