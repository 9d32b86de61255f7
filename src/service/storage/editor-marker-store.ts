/** The editor's own markers on a recording (issue 33): the one owner of `editor_markers`. */
import crypto from 'node:crypto';
import type { Db } from './database';

export interface EditorMarkerRecord {
  id: string;
  time: number;
  name: string;
  created_at: string;
}

export class EditorMarkerStore {
  constructor(private readonly db: Db) {}

  /** A recording's markers in time order (then by when they were made). */
  list(sessionId: string): EditorMarkerRecord[] {
    return this.db
      .prepare('SELECT id, time, name, created_at FROM editor_markers WHERE session_id = ? ORDER BY time, created_at, id')
      .all(sessionId) as EditorMarkerRecord[];
  }

  add(sessionId: string, time: number, name: string): EditorMarkerRecord {
    const marker = { id: crypto.randomUUID(), time, name, created_at: new Date().toISOString() };
    this.db
      .prepare('INSERT INTO editor_markers (id, session_id, time, name, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(marker.id, sessionId, marker.time, marker.name, marker.created_at);
    return marker;
  }

  /** The marker changed, or null when the recording has no such marker. */
  update(sessionId: string, id: string, change: { time?: number; name?: string }): EditorMarkerRecord | null {
    const found = this.list(sessionId).find((m) => m.id === id);
    if (!found) return null;
    const next = { ...found, ...change };
    this.db.prepare('UPDATE editor_markers SET time = ?, name = ? WHERE id = ? AND session_id = ?').run(next.time, next.name, id, sessionId);
    return next;
  }

  /** False when the recording has no such marker. */
  remove(sessionId: string, id: string): boolean {
    return this.db.prepare('DELETE FROM editor_markers WHERE id = ? AND session_id = ?').run(id, sessionId).changes > 0;
  }
}
