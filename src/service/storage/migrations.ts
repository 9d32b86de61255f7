/**
 * Numbered schema migrations, applied in order at start inside one transaction each. Never edit a
 * migration that has shipped: add the next number. (6 belongs to another branch; numbers need not be contiguous.)
 *
 * One list for both databases: `sql` is SQLite's, written in the types both share (TEXT, INTEGER, REAL, BLOB,
 * which `postgres/dialect.ts` maps to PostgreSQL's of the same range); `postgres` is given only where the SQL
 * itself differs (triggers). `postgres/schema.test.ts` checks that the two schemas agree.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** PostgreSQL's own SQL, where SQLite's cannot be mapped type by type. */
  postgres?: string;
}

export const MIGRATIONS: ReadonlyArray<Migration> = [
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
  {
    version: 3,
    name: 'analysis runs, their recording-level parts and measured lines',
    sql: `
      CREATE TABLE analysis_runs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        job_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('queued','running','complete','failed','unavailable')),
        stage TEXT NOT NULL,
        progress REAL NOT NULL DEFAULT 0,
        version TEXT NOT NULL,
        error TEXT,
        duration REAL NOT NULL,
        timings_json TEXT NOT NULL DEFAULT '{"total":0,"stages":{}}',
        created_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT
      );
      CREATE INDEX analysis_runs_session ON analysis_runs(session_id, created_at DESC);
      CREATE TABLE analysis_parts (
        run_id TEXT NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (run_id, name)
      );
      CREATE TABLE analysis_lines (
        run_id TEXT NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
        segment_id INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (run_id, segment_id)
      );
    `,
  },
  {
    version: 4,
    name: 'dubs, lines, revisions, revoices',
    sql: `
      CREATE TABLE dubs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        file_name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('preparing','ready','failed')),
        progress REAL NOT NULL DEFAULT 0,
        stage TEXT,
        error TEXT,
        sample_rate INTEGER NOT NULL,
        channels INTEGER NOT NULL,
        sample_format TEXT NOT NULL,
        frames INTEGER NOT NULL,
        background INTEGER NOT NULL,
        default_voice TEXT,
        voices_json TEXT NOT NULL DEFAULT '{}',
        current_revision INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX dubs_session ON dubs(session_id, created_at);
      CREATE TABLE dub_lines (
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        id INTEGER NOT NULL,
        speaker TEXT NOT NULL,
        start REAL NOT NULL,
        "end" REAL NOT NULL,
        original_start REAL NOT NULL,
        original_end REAL NOT NULL,
        text TEXT NOT NULL,
        original_text TEXT NOT NULL,
        voice TEXT,
        words_json TEXT NOT NULL DEFAULT '[]',
        updated_at TEXT NOT NULL,
        PRIMARY KEY (dub_id, id)
      );
      CREATE TABLE dub_revisions (
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        base INTEGER,
        source TEXT NOT NULL CHECK (source IN ('upload','revoice')),
        revoice_id TEXT,
        file_name TEXT NOT NULL,
        renders_json TEXT NOT NULL DEFAULT '{}',
        lines_revoiced_json TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        PRIMARY KEY (dub_id, number)
      );
      CREATE TABLE dub_revoices (
        id TEXT PRIMARY KEY,
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        job_id TEXT NOT NULL,
        base_revision INTEGER NOT NULL,
        revision INTEGER,
        status TEXT NOT NULL CHECK (status IN ('queued','running','complete','failed')),
        plan_json TEXT NOT NULL,
        error TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT
      );
      CREATE INDEX dub_revoices_dub ON dub_revoices(dub_id, created_at);
      CREATE TABLE dub_revoice_lines (
        revoice_id TEXT NOT NULL REFERENCES dub_revoices(id) ON DELETE CASCADE,
        line_id INTEGER NOT NULL,
        render_json TEXT NOT NULL,
        patch_file TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (revoice_id, line_id)
      );
    `,
  },
  {
    version: 5,
    name: 'transcript revisions (speaker fixes by hand; revision 0 is the recognizer transcript)',
    sql: `
      CREATE TABLE transcript_revisions (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        edit_json TEXT,
        summary_json TEXT NOT NULL,
        transcript_gz BLOB NOT NULL,
        -- The session's speaker map (label → project speaker) while this revision was current, for restoring it.
        speakers_json TEXT,
        PRIMARY KEY (session_id, revision)
      );
      -- 'voice': matched by the voice profile; 'editor': chosen by hand (kept when profiles are measured again).
      ALTER TABLE session_speakers ADD COLUMN assigned TEXT NOT NULL DEFAULT 'voice';
    `,
  },
  {
    version: 6,
    name: 'sign-in tokens shared with `npm run keys -- signin`; transcription chunk checkpoints; best job progress',
    sql: `
      -- One-time studio sign-in links, hashed; in the database so a CLI can issue one to a running service.
      CREATE TABLE sign_in_tokens (
        hash TEXT PRIMARY KEY,
        expires_at TEXT NOT NULL
      );
      -- Each recognized chunk of a running transcription, so a resumed job skips what was done.
      CREATE TABLE transcription_checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        context TEXT NOT NULL,
        offset_ms INTEGER NOT NULL,
        samples INTEGER NOT NULL,
        segments_json TEXT NOT NULL,
        PRIMARY KEY (session_id, context, offset_ms, samples)
      );
      -- The furthest a job got before an interruption, and how many interruptions found it no further:
      -- only those count towards "crash-looping" (a job making progress between kills is not).
      ALTER TABLE jobs ADD COLUMN best_progress REAL NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN stalled_interruptions INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 7,
    name: 'project vocabulary (names and terms handed to the recognizer)',
    sql: `
      ALTER TABLE projects ADD COLUMN vocabulary_json TEXT NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 8,
    name: 'per-session change counter, kept by triggers, for cached documents and ETags',
    sql: `
      -- Bumped by every write that changes what GET /v1/speech/transcriptions/{id} (and the speaker map and
      -- project part of …/intelligence) shows, from any connection: a poll reads this integer to know its
      -- cached document is current instead of reading and comparing the ~200 KB stored transcript.
      ALTER TABLE sessions ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
      -- The WHEN clause skips the trigger's own write (and the other triggers' bumps below).
      CREATE TRIGGER sessions_change_seq AFTER UPDATE ON sessions FOR EACH ROW WHEN NEW.change_seq IS OLD.change_seq
      BEGIN UPDATE sessions SET change_seq = OLD.change_seq + 1 WHERE id = NEW.id; END;
      CREATE TRIGGER projects_change_seq AFTER UPDATE ON projects FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = NEW.id; END;
      CREATE TRIGGER session_speakers_insert_seq AFTER INSERT ON session_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE id = NEW.session_id; END;
      CREATE TRIGGER session_speakers_update_seq AFTER UPDATE ON session_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE id IN (OLD.session_id, NEW.session_id); END;
      CREATE TRIGGER session_speakers_delete_seq AFTER DELETE ON session_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE id = OLD.session_id; END;
      -- Project speakers appear in the speaker map (names, numbers) and in the intelligence document's project.
      CREATE TRIGGER project_speakers_insert_seq AFTER INSERT ON project_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = NEW.project_id; END;
      CREATE TRIGGER project_speakers_update_seq AFTER UPDATE ON project_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id IN (OLD.project_id, NEW.project_id); END;
      CREATE TRIGGER project_speakers_delete_seq AFTER DELETE ON project_speakers FOR EACH ROW
      BEGIN UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = OLD.project_id; END;
    `,
    // The same bumps as PL/pgSQL trigger functions; a BEFORE trigger counts a session's own changes.
    postgres: `
      ALTER TABLE sessions ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
      CREATE FUNCTION takeline_session_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.change_seq IS NOT DISTINCT FROM OLD.change_seq THEN NEW.change_seq := OLD.change_seq + 1; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER sessions_change_seq BEFORE UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION takeline_session_change_seq();
      CREATE FUNCTION takeline_project_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = NEW.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER projects_change_seq AFTER UPDATE ON projects FOR EACH ROW EXECUTE FUNCTION takeline_project_change_seq();
      CREATE FUNCTION takeline_session_speakers_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE sessions SET change_seq = change_seq + 1 WHERE id = NEW.session_id;
        ELSIF TG_OP = 'UPDATE' THEN
          UPDATE sessions SET change_seq = change_seq + 1 WHERE id IN (OLD.session_id, NEW.session_id);
        ELSE
          UPDATE sessions SET change_seq = change_seq + 1 WHERE id = OLD.session_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER session_speakers_seq AFTER INSERT OR UPDATE OR DELETE ON session_speakers
        FOR EACH ROW EXECUTE FUNCTION takeline_session_speakers_seq();
      CREATE FUNCTION takeline_project_speakers_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = NEW.project_id;
        ELSIF TG_OP = 'UPDATE' THEN
          UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id IN (OLD.project_id, NEW.project_id);
        ELSE
          UPDATE sessions SET change_seq = change_seq + 1 WHERE project_id = OLD.project_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER project_speakers_seq AFTER INSERT OR UPDATE OR DELETE ON project_speakers
        FOR EACH ROW EXECUTE FUNCTION takeline_project_speakers_seq();
    `,
  },
  {
    version: 9,
    name: 'transcription diarization checkpoints (speech spans, result)',
    sql: `
      -- The steps of a running transcription that are not per chunk (diarization's speech spans and
      -- result), so a resumed job does not do them again; removed with the chunk checkpoints.
      CREATE TABLE transcription_stage_checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        context TEXT NOT NULL,
        stage TEXT NOT NULL,
        value_json TEXT NOT NULL,
        PRIMARY KEY (session_id, context, stage)
      );
    `,
  },
  {
    version: 10,
    name: 'jobs: the most kept work (checkpoints) seen at an interruption',
    sql: `
      -- Read at a restart with best_progress: a job that kept more checkpoints than at its previous
      -- interruption got further even when its advisory progress fraction did not move.
      ALTER TABLE jobs ADD COLUMN best_kept_work INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 11,
    name: 'users own keys; a key may be limited to projects',
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      );
      ALTER TABLE api_keys ADD COLUMN user_id TEXT REFERENCES users(id);
      -- 'all': every project (the desktop's own key); 'projects': only those in api_key_projects, so a
      -- limited key whose projects are gone sees nothing rather than everything.
      ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'all' CHECK (scope IN ('all', 'projects'));
      CREATE TABLE api_key_projects (
        key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (key_id, project_id)
      );
      -- A studio signed in with a key sees what that key sees (null: the one-time link, the owner's access).
      ALTER TABLE browser_sessions ADD COLUMN key_id TEXT;
    `,
  },
  // ---- dubbing workflow: dub from the recording, line edits with undo, review, speed ----
  {
    version: 12,
    name: 'dubs from the recording; line history, undo, review status and notes, speed',
    sql: `
      -- 'upload': revision 1 is an uploaded file; 'recording': the recording's own original audio.
      ALTER TABLE dubs ADD COLUMN source TEXT NOT NULL DEFAULT 'upload';
      -- The recording's transcript revision a dub from the recording took its lines from.
      ALTER TABLE dubs ADD COLUMN transcript_revision INTEGER;
      -- The highest line id ever given, so ids of lines split off and later undone are never reused
      -- (renders in revisions are keyed by line id).
      ALTER TABLE dubs ADD COLUMN line_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE dub_lines ADD COLUMN review_status TEXT NOT NULL DEFAULT 'todo';
      ALTER TABLE dub_lines ADD COLUMN history_json TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE dub_lines ADD COLUMN speed REAL;
      CREATE TABLE dub_line_notes (
        id TEXT PRIMARY KEY,
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        line_id INTEGER NOT NULL,
        author TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX dub_line_notes_line ON dub_line_notes(dub_id, line_id, created_at);
      -- Each edit of a dub's lines (correct, retime, split, merge) with the lines before and after it,
      -- for undo and redo; an edit made after an undo drops the undone ones.
      CREATE TABLE dub_line_edits (
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        op TEXT NOT NULL,
        author TEXT NOT NULL,
        before_json TEXT NOT NULL,
        after_json TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (dub_id, seq)
      );
    `,
  },
  // ---- end of the dubbing workflow block ----
  // ---- analysis store: the analysis document's revision in the database ----
  {
    version: 13,
    name: "analysis runs: a revision raised by every write (the analysis document's ETag), and their order per session",
    sql: `
      -- Raised by every write to a run, its parts or its lines; a session's analysis revision is the sum over
      -- its runs, the same on every node sharing the database and after a restart (it was a counter in memory).
      ALTER TABLE analysis_runs ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
      -- The run's number within its session, 1 for the first: "newest" without SQLite's rowid.
      ALTER TABLE analysis_runs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      UPDATE analysis_runs SET seq = (
        SELECT count(*) FROM analysis_runs r
        WHERE r.session_id = analysis_runs.session_id
          AND (r.created_at < analysis_runs.created_at OR (r.created_at = analysis_runs.created_at AND r.id <= analysis_runs.id))
      );
      DROP INDEX analysis_runs_session;
      CREATE UNIQUE INDEX analysis_runs_session_seq ON analysis_runs(session_id, seq);
    `,
  },
  // ---- end of the analysis store block ----
  // ---- editor's basics: speaker matches an editor rejected ----
  {
    version: 14,
    name: 'speaker matches rejected by the editor',
    sql: `
      -- "Not this person": a recording's voice (session, label) is not this project speaker. Kept so the voice
      -- is never matched to that speaker again (speakers/session-speakers.ts, speaker-directory.ts).
      CREATE TABLE speaker_match_rejections (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        speaker_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, label, speaker_id)
      );
    `,
  },
  {
    version: 15,
    name: "the editor's own markers",
    sql: `
      -- Markers an editor puts on a recording (a time and a name), listed in its exports with the others.
      CREATE TABLE editor_markers (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        time REAL NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX editor_markers_session ON editor_markers(session_id, time);
    `,
  },
  // ---- end of the editor's basics block ----
  // ---- job queue ----
  {
    version: 16,
    name: 'jobs: their order of queueing',
    sql: `
      -- Orders jobs queued in the same millisecond without SQLite's rowid, on both databases.
      ALTER TABLE jobs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      UPDATE jobs SET seq = (
        SELECT count(*) FROM jobs j WHERE j.created_at < jobs.created_at OR (j.created_at = jobs.created_at AND j.id <= jobs.id)
      );
      CREATE INDEX jobs_queued ON jobs(status, created_at, seq);
    `,
  },
  // ---- end of the job queue block ----
  // ---- shared secrets: the audio-address signing key where every API node reads it ----
  {
    version: 17,
    name: 'secrets shared by API nodes',
    sql: `
      -- Keys every API node must agree on (the audio addresses' signing key), base64. Created with
      -- INSERT … ON CONFLICT DO NOTHING and then read, so nodes starting together end up with the same one.
      CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  // ---- end of the shared secrets block ----
  // ---- dub takes and line revisions ----
  {
    version: 18,
    name: "dub lines: a revision per change, so a stale edit of a line is refused",
    sql: `
      -- Raised by every change to a dub's lines; a line keeps the value of its last change. A PATCH made on
      -- revision N of a line changed since (a later value) is refused with 409 (dubbing.ts patchLine).
      ALTER TABLE dubs ADD COLUMN lines_revision INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE dub_lines ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 19,
    name: "dub lines: the voice a line was made with, so a line whose only change is its voice is revoiced",
    sql: `
      -- A line's own voice as the dub was made (uploaded lines may name one). A line whose voice differs from it
      -- needs a revoice even when its text is the original (line-rules.ts lineState).
      ALTER TABLE dub_lines ADD COLUMN original_voice TEXT;
      UPDATE dub_lines SET original_voice = voice;
    `,
  },
  {
    version: 20,
    name: 'dub line takes: several renderings of a line to choose from, and the take a revision carries',
    sql: `
      -- Renderings of one line (its voice and speed per take), made by a job, auditioned, and one chosen: the
      -- chosen take's audio becomes the line's in a new revision (dub_revisions.take_id). plan_json is the line as
      -- it was rendered; a take no longer matching the line is stale and cannot be chosen.
      CREATE TABLE dub_line_takes (
        id TEXT PRIMARY KEY,
        dub_id TEXT NOT NULL REFERENCES dubs(id) ON DELETE CASCADE,
        line_id INTEGER NOT NULL,
        number INTEGER NOT NULL,
        job_id TEXT NOT NULL,
        voice TEXT NOT NULL,
        speed REAL,
        status TEXT NOT NULL,
        error TEXT,
        plan_json TEXT NOT NULL,
        render_json TEXT,
        base_revision INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT
      );
      CREATE UNIQUE INDEX dub_line_takes_number ON dub_line_takes(dub_id, line_id, number);
      -- A revision that put a take in names it; its source stays 'revoice' in the table (SQLite cannot change the
      -- column's CHECK in place) and the store reads it as 'take'.
      ALTER TABLE dub_revisions ADD COLUMN take_id TEXT;
    `,
  },
  // ---- end of the dub takes block ----
  // ---- a job's result (OpenAI transcriptions answered by an API node, recognised by a worker) ----
  {
    version: 21,
    name: 'jobs: what a job found, for whoever waits on it',
    sql: `
      -- JSON the job's handler returns (or publishes while running: a streamed transcription's text so far), read by
      -- the API node that answers the request the job was queued for.
      ALTER TABLE jobs ADD COLUMN result_json TEXT;
    `,
  },
  // ---- end of the job result block ----
  // ---- speaker adaptation's state in the database, its files on the blob store ----
  {
    version: 22,
    name: "speaker adaptation: each project speaker's state, shared by the team's nodes",
    sql: `
      -- What a speaker's adaptation keeps (storage/adaptation-store.ts): the blob keys of its per-recording
      -- statistics, transform and means, and the summary the projects API shows. version rises with every
      -- estimate; the keys it names are never rewritten, so a node's local copy of one is never stale.
      CREATE TABLE speaker_adaptations (
        speaker_id TEXT PRIMARY KEY REFERENCES project_speakers(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        state_json TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX speaker_adaptations_project ON speaker_adaptations(project_id);
    `,
  },
  // ---- end of the speaker adaptation block ----
  // ---- a team's Whisper models ----
  {
    version: 23,
    name: "whisper models: the models a team installed, kept on its storage",
    sql: `
      -- One row per Whisper model installed through a team node (storage/whisper-model-store.ts): the blob key
      -- of its ggml file (named by the file's sha256, never rewritten) and the checksums a node verifies its
      -- local copy with. The desktop keeps its models as files in its own folder and leaves this table empty.
      CREATE TABLE whisper_models (
        name TEXT PRIMARY KEY,
        file TEXT NOT NULL,
        blob_key TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        sha1 TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        installed_at TEXT NOT NULL
      );
    `,
  },
  // ---- end of the team's Whisper models block ----
  // ---- script alignment's checkpoints (a worker killed mid-alignment) ----
  {
    version: 24,
    name: 'script alignment: the stretches aligned so far, so a job handed to another worker aligns only the rest',
    sql: `
      -- The aligner's words for each stretch of a running script alignment (storage/script-align-checkpoint-store.ts),
      -- under a context: a digest of what they were computed from (recording, script, base transcript, model), so
      -- another request never reuses them. Removed when the alignment finishes or fails for good.
      CREATE TABLE script_alignment_checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        context TEXT NOT NULL,
        word_from INTEGER NOT NULL,
        word_to INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        words_json TEXT NOT NULL,
        PRIMARY KEY (session_id, context, word_from)
      );
    `,
  },
  // ---- end of the script alignment checkpoints block ----
  // ---- a team's Whisper model downloads (progress and cancelling through any API node) ----
  {
    version: 25,
    name: "whisper model downloads: each model's download in progress (or last ended), shared by the team's nodes",
    sql: `
      -- One row per model being downloaded through a team node, or whose last download ended without installing it
      -- (storage/whisper-model-store.ts). attempt names one download: the node running it writes its progress
      -- about once a second under that name (updated_at is its lease: a row not updated for a while is a dead
      -- node's), and a cancel through any node sets status 'cancelled' (discard: 1 also deletes the downloading
      -- node's partial file), which that node sees at its next write and stops. finished_at: when it stopped.
      CREATE TABLE whisper_model_downloads (
        name TEXT PRIMARY KEY,
        attempt TEXT NOT NULL,
        node TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('downloading','failed','cancelled')),
        received_bytes INTEGER NOT NULL,
        total_bytes INTEGER,
        resumed_from INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT,
        discard INTEGER NOT NULL DEFAULT 0,
        error_json TEXT
      );
    `,
  },
  // ---- end of the team's Whisper model downloads block ----
  {
    version: 26,
    name: "users signed in through the organisation's OpenID Connect provider; browser sessions of a user",
    sql: `
      -- A user made at their first single sign-on is linked by the provider's issuer and subject (never by name or
      -- e-mail, which the provider may let people change); name stays the unique handle keys and the CLI use.
      ALTER TABLE users ADD COLUMN oidc_issuer TEXT;
      ALTER TABLE users ADD COLUMN oidc_subject TEXT;
      ALTER TABLE users ADD COLUMN display_name TEXT;
      ALTER TABLE users ADD COLUMN email TEXT;
      -- The provider's groups at the last sign-in (JSON array), for role mappings.
      ALTER TABLE users ADD COLUMN groups_json TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE users ADD COLUMN last_sign_in_at TEXT;
      -- A disabled user cannot sign in, and their studio sessions end at their next request.
      ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
      CREATE UNIQUE INDEX users_oidc_subject ON users(oidc_issuer, oidc_subject);
      -- The user a studio session was signed in as by single sign-on (null: a key or the one-time link).
      ALTER TABLE browser_sessions ADD COLUMN user_id TEXT;
    `,
  },
  // ---- dubs: each speaker's pitch, for a default voice of the speaker's gender ----
  {
    version: 27,
    name: "dubs: each speaker's median pitch and the gender of voice it suggests",
    sql: `
      -- {speaker: {median_f0, voiced_seconds, gender}} measured from the dub's own audio when its lines were set
      -- (speech/speakers/pitch-gender.ts); '{}' for dubs made before, which keep the service's default voice.
      ALTER TABLE dubs ADD COLUMN speaker_pitch_json TEXT NOT NULL DEFAULT '{}';
    `,
  },
  // ---- end of the dubs' speaker pitch block ----
  {
    version: 28,
    name: 'roles: what each user may do, for the whole team or on one project',
    sql: `
      -- Given by an admin (storage/role-store.ts; npm run users, the studio's admin page). project_id null: the
      -- whole team. At most one role per user for the team and one per project; a project's roles go with it.
      -- 'none' (for the team only) records that an admin manages this user's roles and gave no team role: a user
      -- made only to own keys and never managed keeps the keys' powers from before roles; one managed never does.
      CREATE TABLE user_roles (
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        project_id TEXT REFERENCES projects(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('viewer','editor','admin') OR (role = 'none' AND project_id IS NULL)),
        granted_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX user_roles_team ON user_roles(user_id) WHERE project_id IS NULL;
      CREATE UNIQUE INDEX user_roles_project ON user_roles(user_id, project_id) WHERE project_id IS NOT NULL;
      -- Every request with a key or session reads its user's roles by user (key-store.ts, browser-sessions.ts).
      CREATE INDEX user_roles_user ON user_roles(user_id);
    `,
  },
  // ---- the audit trail ----
  {
    version: 29,
    name: 'audit trail: who did what, to which object of which project, when and from where; authors of transcript revisions',
    sql: `
      -- Only ever added to (storage/audit-store.ts). No foreign keys: an entry outlives the project, recording,
      -- key or user it names, so it keeps their ids and the project's key as they were. id sorts in the order of
      -- making within a millisecond. detail_json: the kind's own facts.
      CREATE TABLE audit_log (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        user_name TEXT,
        key_id TEXT,
        key_name TEXT,
        address TEXT,
        project_id TEXT,
        project_key TEXT,
        object_type TEXT,
        object_id TEXT,
        detail_json TEXT NOT NULL
      );
      CREATE INDEX audit_log_at ON audit_log(at DESC, id DESC);
      CREATE INDEX audit_log_user ON audit_log(user_name, at DESC);
      CREATE INDEX audit_log_project ON audit_log(project_id, at DESC);
      CREATE INDEX audit_log_kind ON audit_log(kind, at DESC);
      -- Who made a transcript revision, as people read it (null: the recognizer's revision 0, or made before).
      ALTER TABLE transcript_revisions ADD COLUMN author TEXT;
    `,
  },
  // ---- end of the audit trail block ----
  // ---- dubs: a revoice that follows the original actor ----
  {
    version: 30,
    name: "dubs and dub lines: what a revoice follows (guide: 'original')",
    sql: `
      -- 'original': the revoiced line is warped onto the original line's word timings and pitch; NULL: fitted to
      -- its slot. The dub's is the default; a line's own, when set, overrides it.
      ALTER TABLE dubs ADD COLUMN guide TEXT;
      ALTER TABLE dub_lines ADD COLUMN guide TEXT;
    `,
  },
  // ---- end of the dub guide block ----
  // ---- dub takes: recorded from the microphone beside the synthesized ----
  {
    version: 31,
    name: 'dub line takes: where a take came from (synthesized or recorded)',
    sql: `
      -- A take is synthesized (a takes job rendered it) or recorded (an actor's recording uploaded into the line's
      -- slot); takes made before were all synthesized.
      ALTER TABLE dub_line_takes ADD COLUMN source TEXT NOT NULL DEFAULT 'synthesized' CHECK (source IN ('synthesized', 'recorded'));
    `,
  },
  // ---- end of the recorded takes block ----
];
