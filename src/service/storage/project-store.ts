import crypto from 'node:crypto';
import type { Db } from './database';
import { UniqueViolation, type Sql } from './sql/sql';
import type { Project, ProjectSpeaker } from '../../shared/schemas';

export class ProjectKeyTaken extends Error {}

interface SpeakerRow extends ProjectSpeaker {
  profile_json: string;
}

/** The `projects` table: a project's key, name and vocabulary. */
export interface ProjectStore {
  /** Throws ProjectKeyTaken when the key is in use. */
  create(key: string, name: string): Promise<Project>;
  list(): Promise<Project[]>;
  /** Finds a project by its id or by its key. */
  find(idOrKey: string): Promise<Project | null>;
  findOrCreate(key: string, name: string): Promise<{ project: Project; created: boolean }>;
  /** The project's vocabulary terms, in the order they were given. */
  vocabulary(projectId: string): Promise<string[]>;
  setVocabulary(projectId: string, terms: readonly string[]): Promise<string[]>;
  // The project's known speakers: synchronous until the speakers' own store (project_speakers) takes them.
  speakers(projectId: string): ProjectSpeaker[];
  speakersWithProfiles(projectId: string): Array<ProjectSpeaker & { profile: number[] }>;
  renameSpeaker(projectId: string, speakerId: string, name: string): ProjectSpeaker | null;
}

export class SqlProjectStore implements ProjectStore {
  constructor(
    private readonly sql: Sql,
    private readonly db: Db,
  ) {}

  async create(key: string, name: string): Promise<Project> {
    const project: Project = { id: crypto.randomUUID(), key, name, created_at: new Date().toISOString() };
    try {
      await this.sql.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', [project.id, project.key, project.name, project.created_at]);
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ProjectKeyTaken(key);
      throw error;
    }
    return project;
  }

  list(): Promise<Project[]> {
    return this.sql.all<Project>('SELECT id, key, name, created_at FROM projects ORDER BY created_at DESC, key');
  }

  async find(idOrKey: string): Promise<Project | null> {
    return (await this.sql.get<Project>('SELECT id, key, name, created_at FROM projects WHERE id = ? OR key = ?', [idOrKey, idOrKey])) ?? null;
  }

  async findOrCreate(key: string, name: string): Promise<{ project: Project; created: boolean }> {
    const existing = await this.find(key);
    if (existing && existing.key === key) return { project: existing, created: false };
    try {
      return { project: await this.create(key, name), created: true };
    } catch (error) {
      // Another node (or request) created it between the look and the insert: use theirs.
      if (!(error instanceof ProjectKeyTaken)) throw error;
      const theirs = await this.find(key);
      if (!theirs || theirs.key !== key) throw error;
      return { project: theirs, created: false };
    }
  }

  async vocabulary(projectId: string): Promise<string[]> {
    const row = await this.sql.get<{ vocabulary_json: string }>('SELECT vocabulary_json FROM projects WHERE id = ?', [projectId]);
    return row ? (JSON.parse(row.vocabulary_json) as string[]) : [];
  }

  async setVocabulary(projectId: string, terms: readonly string[]): Promise<string[]> {
    await this.sql.run('UPDATE projects SET vocabulary_json = ? WHERE id = ?', [JSON.stringify(terms), projectId]);
    return this.vocabulary(projectId);
  }

  speakers(projectId: string): ProjectSpeaker[] {
    return this.db
      .prepare('SELECT id, number, name, label, clip_count, evidence_seconds FROM project_speakers WHERE project_id = ? ORDER BY number')
      .all(projectId) as ProjectSpeaker[];
  }

  speakersWithProfiles(projectId: string): Array<ProjectSpeaker & { profile: number[] }> {
    const rows = this.db
      .prepare('SELECT id, number, name, label, clip_count, evidence_seconds, profile_json FROM project_speakers WHERE project_id = ? ORDER BY number')
      .all(projectId) as SpeakerRow[];
    return rows.map(({ profile_json, ...speaker }) => ({ ...speaker, profile: JSON.parse(profile_json) as number[] }));
  }

  renameSpeaker(projectId: string, speakerId: string, name: string): ProjectSpeaker | null {
    const result = this.db.prepare('UPDATE project_speakers SET name = ? WHERE id = ? AND project_id = ?').run(name, speakerId, projectId);
    if (result.changes === 0) return null;
    return this.speakers(projectId).find((s) => s.id === speakerId) ?? null;
  }
}
