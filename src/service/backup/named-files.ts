import { stateKeys } from '../speakers/adaptation-files';
import type { AdaptationState } from '../storage/adaptation-store';
import type { Row } from '../storage/backup-tables';
import { dubKeys } from '../dubbing/dub-files';
import { recordingKeys } from '../storage/stored-files';
import type { LeftOut } from './format';

/** Where the service's stored files live; a restore's target holds none under them. */
export const STORED_ROOTS = ['recordings/', 'adaptation/', 'speech-models/'] as const;

/** A file a row names, and what a restore leaves out when it is gone. */
export interface NamedFile {
  key: string;
  owner: { kind: LeftOut['kind']; id: string };
}

/**
 * The stored files a backup's rows name, gathered as the rows are read. A recording's files are copied as a
 * folder (every object under recordings/<id>/: its original, dubs with their revisions and takes, derived peaks);
 * of those, the original and the audio of every revision of a ready dub must be there, or the recording is left
 * out. Speakers' adaptation files and installed models are named one by one.
 */
export class NamedFiles {
  readonly recordings: string[] = [];
  readonly required: NamedFile[] = [];
  private readonly dubs = new Map<string, { sessionId: string; ready: boolean }>();

  /** Called with every row, table by table, parents first (a dub before its revisions). */
  observe(table: string, row: Row): void {
    switch (table) {
      case 'sessions': {
        const id = String(row.id);
        this.recordings.push(id);
        this.required.push({ key: recordingKeys.original(id, String(row.stored_name)), owner: { kind: 'recording', id } });
        return;
      }
      case 'dubs': {
        const dub = { sessionId: String(row.session_id), ready: row.status === 'ready' };
        this.dubs.set(String(row.id), dub);
        if (dub.ready && Number(row.background) === 1) this.required.push({ key: dubKeys.background(dub.sessionId, String(row.id)), owner: { kind: 'recording', id: dub.sessionId } });
        return;
      }
      case 'dub_revisions': {
        const dub = this.dubs.get(String(row.dub_id));
        // A dub still preparing names its first revision's file before the file is made.
        if (dub?.ready) this.required.push({ key: dubKeys.revision(dub.sessionId, String(row.dub_id), String(row.file_name)), owner: { kind: 'recording', id: dub.sessionId } });
        return;
      }
      case 'speaker_adaptations': {
        const id = String(row.speaker_id);
        for (const key of stateKeys(JSON.parse(String(row.state_json)) as AdaptationState)) this.required.push({ key, owner: { kind: 'adaptation', id } });
        return;
      }
      case 'whisper_models':
        this.required.push({ key: String(row.blob_key), owner: { kind: 'model', id: String(row.name) } });
        return;
    }
  }

  /** The folders copied whole. */
  folders(): string[] {
    return this.recordings.map((id) => recordingKeys.prefix(id));
  }

  /** Files named one by one (outside the recordings' folders). */
  singles(): string[] {
    return [...new Set(this.required.filter((f) => f.owner.kind !== 'recording').map((f) => f.key))];
  }

  /** Owners whose named files are not all among `copied`, with the missing files. */
  leftOut(copied: ReadonlySet<string>): LeftOut[] {
    const byOwner = new Map<string, LeftOut>();
    for (const file of this.required) {
      if (copied.has(file.key)) continue;
      const id = `${file.owner.kind}:${file.owner.id}`;
      const entry = byOwner.get(id) ?? { ...file.owner, missing: [] };
      entry.missing.push(file.key);
      byOwner.set(id, entry);
    }
    return [...byOwner.values()];
  }
}
