import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config';
import { DataLayout } from '../storage/files';
import { openDatabase } from '../storage/database';
import { KeyStore } from '../storage/key-store';
import { SignInTokens } from '../auth/sign-in';

function readServiceUrl(file: string): string | null {
  try {
    const url = fs.readFileSync(file, 'utf8').trim();
    return /^http:\/\/127\.0\.0\.1:\d+$/.test(url) ? url : null;
  } catch {
    return null;
  }
}

const USAGE = `usage: npm run keys -- create [name] | list | revoke <id> | signin
  Manages API keys in TAKELINE_DATA_DIR (default: the per-user data folder);
  signin prints a fresh one-time sign-in link for the studio (also while the service runs).`;

/** `npm run keys -- create|list|revoke`: works beside a running service (SQLite WAL). */
function main(argv: string[]): number {
  const [command, arg] = argv;
  const config = loadConfig();
  const layout = new DataLayout(config.dataDir);
  layout.ensure();
  const db = openDatabase(layout.database);
  const keys = new KeyStore(db);
  try {
    switch (command) {
      case 'create': {
        const { key, record } = keys.create(arg ?? 'cli');
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created key ${record.id} (${record.name}); it is shown only now. Data: ${path.resolve(config.dataDir)}\n`);
        return 0;
      }
      case 'list': {
        const rows = keys.list();
        if (rows.length === 0) process.stdout.write('no keys\n');
        for (const r of rows) {
          process.stdout.write(`${r.id}  ${r.hint}  ${r.name.padEnd(12)}  created ${r.created_at}  ${r.revoked_at ? `revoked ${r.revoked_at}` : 'active'}\n`);
        }
        return 0;
      }
      case 'signin': {
        const token = new SignInTokens(db).issue();
        const running = readServiceUrl(layout.serviceUrl);
        const base = running ?? `http://127.0.0.1:${config.port}`;
        process.stdout.write(`${base}/auth/signin?token=${token}\n`);
        if (!running) process.stderr.write(`no running service found in ${path.resolve(config.dataDir)}; the link works once it runs on port ${config.port}\n`);
        return 0;
      }
      case 'revoke': {
        if (!arg) break;
        const record = keys.revoke(arg);
        if (!record) {
          process.stderr.write(`no single key matches "${arg}"\n`);
          return 1;
        }
        process.stdout.write(`revoked ${record.id} (${record.hint})\n`);
        return 0;
      }
    }
    process.stderr.write(USAGE + '\n');
    return 2;
  } finally {
    db.close();
  }
}

process.exitCode = main(process.argv.slice(2));
