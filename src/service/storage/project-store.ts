import crypto from 'node:crypto';
import { UniqueViolation, type Sql } from './sql/sql';
import type { Project } from '../../shared/schemas';
import { SqlAuditStore, type NewAuditEntry } from './audit-store';
import { currentActor } from '../audit/actor';

export class ProjectKeyTaken extends Error {}

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
}

export class SqlProjectStore implements ProjectStore {
  constructor(private readonly sql: Sql) {}

  async create(key: string, name: string): Promise<Project> {
    const project: Project = { id: crypto.randomUUID(), key, name, created_at: new Date().toISOString() };
    try {
      await this.sql.transaction(async (tx) => {
        await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', [project.id, project.key, project.name, project.created_at]);
        await new SqlAuditStore(tx).append(projectCreated(project));
      });
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
    // Another node (or request) may create it between the look and the insert: theirs is used. No error is
    // raised for it, so this also works inside a transaction (PostgreSQL aborts one on a failed statement).
    const project: Project = { id: crypto.randomUUID(), key, name, created_at: new Date().toISOString() };
    const { changes } = await this.sql.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING', [
      project.id,
      project.key,
      project.name,
      project.created_at,
    ]);
    if (changes === 1) {
      await new SqlAuditStore(this.sql).append(projectCreated(project));
      return { project, created: true };
    }
    const theirs = await this.sql.get<Project>('SELECT id, key, name, created_at FROM projects WHERE key = ?', [key]);
    if (!theirs) throw new ProjectKeyTaken(key);
    return { project: theirs, created: false };
  }

  async vocabulary(projectId: string): Promise<string[]> {
    const row = await this.sql.get<{ vocabulary_json: string }>('SELECT vocabulary_json FROM projects WHERE id = ?', [projectId]);
    return row ? (JSON.parse(row.vocabulary_json) as string[]) : [];
  }

  async setVocabulary(projectId: string, terms: readonly string[]): Promise<string[]> {
    await this.sql.run('UPDATE projects SET vocabulary_json = ? WHERE id = ?', [JSON.stringify(terms), projectId]);
    return this.vocabulary(projectId);
  }
}

/** A project's creation, by whoever the work in progress acts for (a request's caller, or the first upload's). */
function projectCreated(project: Project): NewAuditEntry {
  return { kind: 'project.created', actor: currentActor(), project: { id: project.id, key: project.key }, object: { type: 'project', id: project.id }, detail: { name: project.name } };
}
