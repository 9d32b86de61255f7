import crypto from 'node:crypto';
import type { ProjectSpeaker } from '../../shared/schemas';
import type { Sql } from './sql/sql';

/** A label of a recording mapped to a project speaker (`session_speakers`). */
export interface SpeakerMapRow {
  label: string;
  speaker_id: string;
  similarity: number;
  matched: number;
  seconds: number;
  /** 'voice': matched by the voice profile; 'editor': chosen by hand (kept when profiles are measured again). */
  assigned: 'voice' | 'editor';
}

/** A session's speaker map as stored with a revision: each label's project speaker as it was. */
export type SpeakerSnapshot = Array<SpeakerMapRow & { number: number; name: string; profile_json: string; project_id: string }>;

/** A row of the session's speaker map joined with its project speaker, as the documents show it. */
export interface NamedMapRow {
  label: string;
  speaker_id: string;
  similarity: number;
  matched: number;
  number: number;
  name: string;
  /** The recording the project speaker was first heard in (the oldest one naming it). */
  first_session_id: string;
  first_file_name: string;
}

export type ProjectSpeakerWithProfile = ProjectSpeaker & { profile: number[] };

/**
 * A project's known speakers (`project_speakers`) and each recording's map of labels to them
 * (`session_speakers`): the one owner of both tables. The matching and pooling logic is the speakers
 * domain's (speakers/); this store only reads and writes rows.
 */
export interface SpeakerStore {
  projectSpeakers(projectId: string): Promise<ProjectSpeaker[]>;
  projectSpeakersWithProfiles(projectId: string): Promise<ProjectSpeakerWithProfile[]>;
  projectSpeaker(speakerId: string): Promise<{ id: string; project_id: string; number: number; name: string } | null>;
  /** Null when the project has no such speaker. */
  renameProjectSpeaker(projectId: string, speakerId: string, name: string): Promise<ProjectSpeaker | null>;
  /** A new project speaker `Speaker N` (label `PN`) with one recording's voice profile; returns its id. */
  createProjectSpeaker(projectId: string, profile: number[], seconds: number, clips: number): Promise<string>;
  /**
   * Brings back a project speaker a revision's snapshot names (same id and name) if an edit since removed
   * it; its number is kept unless another speaker took it meanwhile.
   */
  recreateProjectSpeaker(entry: SpeakerSnapshot[number]): Promise<void>;
  /** One more recording's evidence for a matched speaker, with its pooled profile. */
  addEvidence(speakerId: string, seconds: number, profile: number[]): Promise<void>;
  /** A speaker's clips, seconds and (when measured) profile, pooled again from the sessions that name it. */
  setPooled(speakerId: string, clips: number, seconds: number, profile: number[] | null): Promise<void>;
  deleteProjectSpeaker(speakerId: string): Promise<void>;

  map(sessionId: string): Promise<SpeakerMapRow[]>;
  namedMap(sessionId: string): Promise<NamedMapRow[]>;
  snapshot(sessionId: string): Promise<SpeakerSnapshot>;
  /** Every session label mapped to a project speaker. */
  mappingsOf(speakerId: string): Promise<Array<{ session_id: string; label: string; seconds: number }>>;
  clearMap(sessionId: string): Promise<void>;
  removeLabel(sessionId: string, label: string): Promise<void>;
  insertMapping(sessionId: string, row: SpeakerMapRow): Promise<void>;
  updateMapping(sessionId: string, label: string, seconds: number, similarity: number): Promise<void>;
  /** A label tied to a project speaker by hand (replacing any mapping the label had). */
  pin(sessionId: string, label: string, speakerId: string, seconds: number): Promise<void>;
  /** A label matched by voice again, to another project speaker (or a new one). */
  rematch(sessionId: string, label: string, speakerId: string, similarity: number, matched: boolean): Promise<void>;
  /** "Not this person": the voice `label` of the session is never matched to `speakerId` again. */
  rejectMatch(sessionId: string, label: string, speakerId: string): Promise<void>;
  /** The project speakers each voice (label) of a session was said not to be, by label. */
  rejectedMatches(sessionId: string): Promise<Map<string, Set<string>>>;
}

interface SpeakerRow extends ProjectSpeaker {
  profile_json: string;
}

const SPEAKER_COLUMNS = 'id, number, name, label, clip_count, evidence_seconds';

export class SqlSpeakerStore implements SpeakerStore {
  constructor(private readonly sql: Sql) {}

  projectSpeakers(projectId: string): Promise<ProjectSpeaker[]> {
    return this.sql.all<ProjectSpeaker>(`SELECT ${SPEAKER_COLUMNS} FROM project_speakers WHERE project_id = ? ORDER BY number`, [projectId]);
  }

  async projectSpeakersWithProfiles(projectId: string): Promise<ProjectSpeakerWithProfile[]> {
    const rows = await this.sql.all<SpeakerRow>(`SELECT ${SPEAKER_COLUMNS}, profile_json FROM project_speakers WHERE project_id = ? ORDER BY number`, [projectId]);
    return rows.map(({ profile_json, ...speaker }) => ({ ...speaker, profile: JSON.parse(profile_json) as number[] }));
  }

  async projectSpeaker(speakerId: string): Promise<{ id: string; project_id: string; number: number; name: string } | null> {
    return (await this.sql.get<{ id: string; project_id: string; number: number; name: string }>('SELECT id, project_id, number, name FROM project_speakers WHERE id = ?', [speakerId])) ?? null;
  }

  async renameProjectSpeaker(projectId: string, speakerId: string, name: string): Promise<ProjectSpeaker | null> {
    const { changes } = await this.sql.run('UPDATE project_speakers SET name = ? WHERE id = ? AND project_id = ?', [name, speakerId, projectId]);
    if (changes === 0) return null;
    return (await this.sql.get<ProjectSpeaker>(`SELECT ${SPEAKER_COLUMNS} FROM project_speakers WHERE id = ?`, [speakerId])) ?? null;
  }

  async createProjectSpeaker(projectId: string, profile: number[], seconds: number, clips: number): Promise<string> {
    const id = crypto.randomUUID();
    const number = (await this.nextNumber(projectId)) ?? 1;
    await this.insertSpeaker(id, projectId, number, `Speaker ${number}`, clips, seconds, JSON.stringify(profile));
    return id;
  }

  async recreateProjectSpeaker(entry: SpeakerSnapshot[number]): Promise<void> {
    if (await this.projectSpeaker(entry.speaker_id)) return;
    const taken = await this.sql.get('SELECT 1 AS taken FROM project_speakers WHERE project_id = ? AND number = ?', [entry.project_id, entry.number]);
    const number = taken ? ((await this.nextNumber(entry.project_id)) ?? 1) : entry.number;
    const name = entry.name === `Speaker ${entry.number}` ? `Speaker ${number}` : entry.name;
    await this.insertSpeaker(entry.speaker_id, entry.project_id, number, name, 0, 0, entry.profile_json);
  }

  async addEvidence(speakerId: string, seconds: number, profile: number[]): Promise<void> {
    await this.sql.run('UPDATE project_speakers SET clip_count = clip_count + 1, evidence_seconds = evidence_seconds + ?, profile_json = ? WHERE id = ?', [
      seconds,
      JSON.stringify(profile),
      speakerId,
    ]);
  }

  async setPooled(speakerId: string, clips: number, seconds: number, profile: number[] | null): Promise<void> {
    if (profile) {
      await this.sql.run('UPDATE project_speakers SET clip_count = ?, evidence_seconds = ?, profile_json = ? WHERE id = ?', [clips, seconds, JSON.stringify(profile), speakerId]);
    } else {
      await this.sql.run('UPDATE project_speakers SET clip_count = ?, evidence_seconds = ? WHERE id = ?', [clips, seconds, speakerId]);
    }
  }

  async deleteProjectSpeaker(speakerId: string): Promise<void> {
    await this.sql.run('DELETE FROM project_speakers WHERE id = ?', [speakerId]);
  }

  map(sessionId: string): Promise<SpeakerMapRow[]> {
    return this.sql.all<SpeakerMapRow>('SELECT label, speaker_id, similarity, matched, seconds, assigned FROM session_speakers WHERE session_id = ?', [sessionId]);
  }

  namedMap(sessionId: string): Promise<NamedMapRow[]> {
    return this.sql.all<NamedMapRow>(
      `SELECT ss.label, ss.speaker_id, ss.similarity, ss.matched, ps.number, ps.name, fs.id AS first_session_id, fs.file_name AS first_file_name
       FROM session_speakers ss JOIN project_speakers ps ON ps.id = ss.speaker_id
       JOIN sessions fs ON fs.id = (
         SELECT s.id FROM session_speakers f JOIN sessions s ON s.id = f.session_id
         WHERE f.speaker_id = ss.speaker_id ORDER BY s.created_at, s.id LIMIT 1)
       WHERE ss.session_id = ? ORDER BY ss.label`,
      [sessionId],
    );
  }

  snapshot(sessionId: string): Promise<SpeakerSnapshot> {
    return this.sql.all(
      `SELECT ss.label, ss.speaker_id, ss.similarity, ss.matched, ss.seconds, ss.assigned, ps.number, ps.name, ps.profile_json, ps.project_id
       FROM session_speakers ss JOIN project_speakers ps ON ps.id = ss.speaker_id WHERE ss.session_id = ? ORDER BY ss.label`,
      [sessionId],
    );
  }

  mappingsOf(speakerId: string): Promise<Array<{ session_id: string; label: string; seconds: number }>> {
    return this.sql.all('SELECT session_id, label, seconds FROM session_speakers WHERE speaker_id = ? ORDER BY session_id, label', [speakerId]);
  }

  async clearMap(sessionId: string): Promise<void> {
    await this.sql.run('DELETE FROM session_speakers WHERE session_id = ?', [sessionId]);
  }

  async removeLabel(sessionId: string, label: string): Promise<void> {
    await this.sql.run('DELETE FROM session_speakers WHERE session_id = ? AND label = ?', [sessionId, label]);
  }

  async insertMapping(sessionId: string, row: SpeakerMapRow): Promise<void> {
    await this.sql.run('INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds, assigned) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      sessionId,
      row.label,
      row.speaker_id,
      row.similarity,
      row.matched,
      row.seconds,
      row.assigned,
    ]);
  }

  async updateMapping(sessionId: string, label: string, seconds: number, similarity: number): Promise<void> {
    await this.sql.run('UPDATE session_speakers SET seconds = ?, similarity = ? WHERE session_id = ? AND label = ?', [seconds, similarity, sessionId, label]);
  }

  async pin(sessionId: string, label: string, speakerId: string, seconds: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds, assigned) VALUES (?, ?, ?, 0, 1, ?, 'editor')
       ON CONFLICT (session_id, label) DO UPDATE SET speaker_id = excluded.speaker_id, similarity = 0, matched = 1, seconds = excluded.seconds, assigned = 'editor'`,
      [sessionId, label, speakerId, seconds],
    );
  }

  async rematch(sessionId: string, label: string, speakerId: string, similarity: number, matched: boolean): Promise<void> {
    await this.sql.run("UPDATE session_speakers SET speaker_id = ?, similarity = ?, matched = ?, assigned = 'voice' WHERE session_id = ? AND label = ?", [
      speakerId,
      similarity,
      matched ? 1 : 0,
      sessionId,
      label,
    ]);
  }

  async rejectMatch(sessionId: string, label: string, speakerId: string): Promise<void> {
    await this.sql.run('INSERT INTO speaker_match_rejections (session_id, label, speaker_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [
      sessionId,
      label,
      speakerId,
      new Date().toISOString(),
    ]);
  }

  async rejectedMatches(sessionId: string): Promise<Map<string, Set<string>>> {
    const rows = await this.sql.all<{ label: string; speaker_id: string }>('SELECT label, speaker_id FROM speaker_match_rejections WHERE session_id = ?', [sessionId]);
    const byLabel = new Map<string, Set<string>>();
    for (const r of rows) (byLabel.get(r.label) ?? byLabel.set(r.label, new Set()).get(r.label)!).add(r.speaker_id);
    return byLabel;
  }

  private async nextNumber(projectId: string): Promise<number | null> {
    const row = await this.sql.get<{ n: number | null }>('SELECT MAX(number) AS n FROM project_speakers WHERE project_id = ?', [projectId]);
    return (row?.n ?? 0) + 1;
  }

  private async insertSpeaker(id: string, projectId: string, number: number, name: string, clips: number, seconds: number, profileJson: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO project_speakers (id, project_id, number, name, label, clip_count, evidence_seconds, profile_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [id, projectId, number, name, `P${number}`, clips, seconds, profileJson, new Date().toISOString()],
    );
  }
}
