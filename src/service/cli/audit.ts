import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config';
import { DataLayout } from '../storage/files';
import { openRecords } from '../persistence';
import { SqlAuditStore } from '../storage/audit-store';
import { AuditQuery, type AuditEntry } from '../../shared/schemas/audit';
import { runCommand, UsageError } from './usage';

const USAGE = `usage: npm run audit -- [--user <name>] [--project <key or id>] [--kind <kind>] [--since <time>] [--until <time>]
                        [--limit <n>] [--offset <n>] [--all] [--json]
  the audit trail, newest first: a table, or one JSON object per line with --json
  --since / --until   ISO 8601 times (since: at or after; until: before), e.g. 2026-12-01 or 2026-12-01T09:00:00Z
  --limit             entries to print (default 50); --all prints every matching entry
The trail is read from TAKELINE_DATA_DIR (default: the per-user data folder), or a team server's TAKELINE_DATABASE_URL.`;

/** Entries per read when printing them all. */
const BATCH = 500;

/** A date alone is that day's start in UTC. */
function isoTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
}

const CliQuery = AuditQuery.extend({ limit: z.coerce.number().int().min(1).max(1_000_000).default(50) });

function row(entry: AuditEntry): string {
  const who = entry.actor.user && entry.actor.user !== entry.actor.name ? `${entry.actor.name} (${entry.actor.user})` : entry.actor.name;
  const what = entry.object ? `${entry.object.type} ${entry.object.id}` : '-';
  const detail = Object.keys(entry.detail).length ? JSON.stringify(entry.detail) : '';
  return [entry.at, entry.kind.padEnd(18), who.padEnd(24), (entry.address ?? '-').padEnd(15), (entry.project?.key ?? '-').padEnd(12), what, detail].join('  ');
}

/** `npm run audit -- …`: reads only; works beside a running service. Unknown options are refused, never ignored. */
async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: false,
    strict: true,
    options: {
      user: { type: 'string' },
      project: { type: 'string' },
      kind: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const { all, json, ...filters } = parsed.values;
  const values = { all, json };
  const result = CliQuery.safeParse({ ...filters, since: isoTime(filters.since), until: isoTime(filters.until) });
  if (!result.success) throw new UsageError(result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  const query = result.data;
  const config = loadConfig();
  const layout = new DataLayout(config.dataDir);
  // A team's trail is in its PostgreSQL; the data folder is not touched then.
  if (!config.databaseUrl) layout.ensure();
  const records = await openRecords(config.databaseUrl, layout);
  try {
    const audit = new SqlAuditStore(records.sql);
    const { limit, offset, ...filter } = query;
    const print = (entry: AuditEntry) => process.stdout.write(`${values.json ? JSON.stringify(entry) : row(entry)}\n`);
    let printed = 0;
    let total = 0;
    for (let at = offset; ; at += BATCH) {
      const want = values.all ? BATCH : Math.min(BATCH, limit - printed);
      if (want <= 0) break;
      const page = await audit.list({ ...filter, limit: want, offset: at });
      total = page.total;
      for (const entry of page.data) print(entry);
      printed += page.data.length;
      if (page.data.length < want) break;
    }
    if (!values.json) process.stderr.write(`${printed} of ${total} matching entr${total === 1 ? 'y' : 'ies'}; newest first. Data: ${records.where}\n`);
    return 0;
  } finally {
    await records.close();
  }
}

void runCommand(() => main(process.argv.slice(2)), USAGE);
