/**
 * Numbered schema migrations, applied in order at start inside one transaction each. Never edit a
 * migration that has shipped: add the next number.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'projects, sessions, keys, jobs',
    sql: `
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        file_name TEXT NOT NULL,
        stored_name TEXT NOT NULL,
        duration REAL NOT NULL,
        format_json TEXT NOT NULL,
        language TEXT NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued','running','complete','failed')),
        progress REAL NOT NULL DEFAULT 0,
        stage TEXT,
        error TEXT,
        media_json TEXT,
        transcript_json TEXT
      );
      CREATE INDEX sessions_project_created ON sessions(project_id, created_at DESC);
      CREATE INDEX sessions_created ON sessions(created_at DESC);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        hint TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE browser_sessions (
        hash TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('queued','running','complete','failed','cancelled')),
        payload_json TEXT NOT NULL DEFAULT '{}',
        progress REAL NOT NULL DEFAULT 0,
        stage TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT
      );
      CREATE INDEX jobs_status_created ON jobs(status, created_at);
      CREATE INDEX jobs_session ON jobs(session_id);
    `,
  },
  {
    version: 2,
    name: 'project speakers and per-session speaker map',
    sql: `
      CREATE TABLE project_speakers (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        name TEXT NOT NULL,
        label TEXT NOT NULL,
        clip_count INTEGER NOT NULL DEFAULT 0,
        evidence_seconds REAL NOT NULL DEFAULT 0,
        profile_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (project_id, number)
      );
      CREATE TABLE session_speakers (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        speaker_id TEXT NOT NULL REFERENCES project_speakers(id) ON DELETE CASCADE,
        similarity REAL NOT NULL,
        matched INTEGER NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (session_id, label)
      );
    `,
  },
];
