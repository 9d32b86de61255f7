import { SqlAnalysisStore, type AnalysisStore } from './analysis-store';
import { SqlJobStore, type JobDispatch, type JobStore } from './job-store';
import { SqlProjectStore, type ProjectStore } from './project-store';
import { SqlRevisionStore, type TranscriptRevisionStore } from './revision-store';
import { SqlSessionStore, type SessionStore } from './session-store';
import { SqlSpeakerStore, type SpeakerStore } from './speaker-store';
import type { Sql } from './sql/sql';
import { SqlAuditStore, type AuditStore } from './audit-store';

/** The stores, all on one connection or transaction. */
export interface Stores {
  projects: ProjectStore;
  sessions: SessionStore;
  revisions: TranscriptRevisionStore;
  speakers: SpeakerStore;
  /** Job records: work queued inside a transaction is queued only if the transaction commits. */
  jobs: JobStore;
  analysis: AnalysisStore;
  /** The audit trail: an entry written here inside `transaction` commits with the change it records. */
  audit: AuditStore;
}

/** The stores over a database, with a way to run work that must commit whole. */
export interface Database extends Stores {
  /** Runs `work` on stores bound to one transaction: all of its writes commit, or none. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}

function storesOn(sql: Sql, dispatch?: JobDispatch): Stores {
  return {
    projects: new SqlProjectStore(sql),
    sessions: new SqlSessionStore(sql),
    revisions: new SqlRevisionStore(sql),
    speakers: new SqlSpeakerStore(sql),
    jobs: new SqlJobStore(sql, dispatch),
    analysis: new SqlAnalysisStore(sql),
    audit: new SqlAuditStore(sql),
  };
}

/** `dispatch`: team mode's queue engine, given every job recorded through these stores. */
export function openStores(sql: Sql, dispatch?: JobDispatch): Database {
  return { ...storesOn(sql, dispatch), transaction: (work) => sql.transaction((tx) => work(storesOn(tx, dispatch))) };
}
