import crypto from 'node:crypto';
import type { Db } from './database';
import { Statements } from './statements';
import type { Project, ProjectSpeaker } from '../../shared/schemas';

export class ProjectKeyTaken extends Error {}

interface SpeakerRow extends ProjectSpeaker {
  profile_json: string;
}

export class ProjectStore {
  /** Statements of the read routes, prepared once. */
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  create(key: string, name: string): Project {
    const project: Project = { id: crypto.randomUUID(), key, name, created_at: new Date().toISOString() };
    try {
      this.db
        .prepare('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)')
        .run(project.id, project.key, project.name, project.created_at);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new ProjectKeyTaken(key);
      throw error;
    }
    return project;
  }

  list(): Project[] {
    return this.statements.get('SELECT id, key, name, created_at FROM projects ORDER BY created_at DESC, key').all() as Project[];
  }

  /** Finds a project by its id or by its key. */
  find(idOrKey: string): Project | null {
    return (
      (this.statements.get('SELECT id, key, name, created_at FROM projects WHERE id = ? OR key = ?').get(idOrKey, idOrKey) as
        | Project
        | undefined) ?? null
    );
  }

  findOrCreate(key: string, name: string): { project: Project; created: boolean } {
    const existing = this.find(key);
    if (existing && existing.key === key) return { project: existing, created: false };
    return { project: this.create(key, name), created: true };
  }

  speakers(projectId: string): ProjectSpeaker[] {
    return (
      this.db
        .prepare('SELECT id, number, name, label, clip_count, evidence_seconds FROM project_speakers WHERE project_id = ? ORDER BY number')
        .all(projectId) as ProjectSpeaker[]
    );
  }

  speakersWithProfiles(projectId: string): Array<ProjectSpeaker & { profile: number[] }> {
    const rows = this.db
      .prepare('SELECT id, number, name, label, clip_count, evidence_seconds, profile_json FROM project_speakers WHERE project_id = ? ORDER BY number')
      .all(projectId) as SpeakerRow[];
    return rows.map(({ profile_json, ...speaker }) => ({ ...speaker, profile: JSON.parse(profile_json) as number[] }));
  }

  /** The project's vocabulary terms, in the order they were given. */
  vocabulary(projectId: string): string[] {
    const row = this.db.prepare('SELECT vocabulary_json FROM projects WHERE id = ?').get(projectId) as { vocabulary_json: string } | undefined;
    return row ? (JSON.parse(row.vocabulary_json) as string[]) : [];
  }

  setVocabulary(projectId: string, terms: readonly string[]): string[] {
    this.db.prepare('UPDATE projects SET vocabulary_json = ? WHERE id = ?').run(JSON.stringify(terms), projectId);
    return this.vocabulary(projectId);
  }

  renameSpeaker(projectId: string, speakerId: string, name: string): ProjectSpeaker | null {
    const result = this.db.prepare('UPDATE project_speakers SET name = ? WHERE id = ? AND project_id = ?').run(name, speakerId, projectId);
    if (result.changes === 0) return null;
    return this.speakers(projectId).find((s) => s.id === speakerId) ?? null;
  }
}
