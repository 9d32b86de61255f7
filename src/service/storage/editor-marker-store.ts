/** The editor's own markers on a recording: the one owner of `editor_markers`. */
import crypto from 'node:crypto';
import type { Sql } from './sql/sql';

export interface EditorMarkerRecord {
  id: string;
  time: number;
  name: string;
  created_at: string;
}

export interface EditorMarkerStore {
  /** A recording's markers in time order (then by when they were made). */
  list(sessionId: string): Promise<EditorMarkerRecord[]>;
  add(sessionId: string, time: number, name: string): Promise<EditorMarkerRecord>;
  /** The marker changed, or null when the recording has no such marker. */
  update(sessionId: string, id: string, change: { time?: number; name?: string }): Promise<EditorMarkerRecord | null>;
  /** False when the recording has no such marker. */
  remove(sessionId: string, id: string): Promise<boolean>;
}

export class SqlEditorMarkerStore implements EditorMarkerStore {
  constructor(private readonly sql: Sql) {}

  list(sessionId: string): Promise<EditorMarkerRecord[]> {
    return this.sql.all<EditorMarkerRecord>('SELECT id, time, name, created_at FROM editor_markers WHERE session_id = ? ORDER BY time, created_at, id', [sessionId]);
  }

  async add(sessionId: string, time: number, name: string): Promise<EditorMarkerRecord> {
    const marker = { id: crypto.randomUUID(), time, name, created_at: new Date().toISOString() };
    await this.sql.run('INSERT INTO editor_markers (id, session_id, time, name, created_at) VALUES (?, ?, ?, ?, ?)', [marker.id, sessionId, marker.time, marker.name, marker.created_at]);
    return marker;
  }

  update(sessionId: string, id: string, change: { time?: number; name?: string }): Promise<EditorMarkerRecord | null> {
    return this.sql.transaction(async (tx) => {
      const found = await tx.get<EditorMarkerRecord>('SELECT id, time, name, created_at FROM editor_markers WHERE id = ? AND session_id = ?', [id, sessionId]);
      if (!found) return null;
      const next = { ...found, ...change };
      await tx.run('UPDATE editor_markers SET time = ?, name = ? WHERE id = ? AND session_id = ?', [next.time, next.name, id, sessionId]);
      return next;
    });
  }

  async remove(sessionId: string, id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM editor_markers WHERE id = ? AND session_id = ?', [id, sessionId])).changes > 0;
  }
}
