import fs from 'node:fs';
import path from 'node:path';
import type { DataLayout } from '../storage/files';
import type { DubStore } from '../storage/dub-store';

/**
 * Where a dub's files live, inside its recording's folder (so deleting the recording takes them along):
 *
 *   recordings/<session>/dubs/<dub>/revisions/r0001.wav   every revision, whole, as WAV
 *   recordings/<session>/dubs/<dub>/background.wav        the music-and-effects stem, at the dub's format
 *   recordings/<session>/dubs/<dub>/work/<revoice>/       a running revoice's rendered lines
 *   recordings/<session>/dubs/<dub>/peaks/r0001.json      waveform peaks of a revision
 *   recordings/<session>/dubs/<dub>/takes/<take>.patch     a line's take as rendered (for putting it in)
 *   recordings/<session>/dubs/<dub>/takes/<take>.wav       the take's region as the dub would sound with it
 *
 * Names come from ids the service made, never from client input.
 */
export class DubFiles {
  constructor(private readonly layout: DataLayout) {}

  dir(sessionId: string, dubId: string): string {
    return path.join(this.layout.recording(sessionId), 'dubs', dubId);
  }
  revisionsDir(sessionId: string, dubId: string): string {
    return path.join(this.dir(sessionId, dubId), 'revisions');
  }
  revision(sessionId: string, dubId: string, fileName: string): string {
    return path.join(this.revisionsDir(sessionId, dubId), fileName);
  }
  background(sessionId: string, dubId: string): string {
    return path.join(this.dir(sessionId, dubId), 'background.wav');
  }
  work(sessionId: string, dubId: string, revoiceId: string): string {
    return path.join(this.dir(sessionId, dubId), 'work', revoiceId);
  }
  takesDir(sessionId: string, dubId: string): string {
    return path.join(this.dir(sessionId, dubId), 'takes');
  }
  take(sessionId: string, dubId: string, fileName: string): string {
    return path.join(this.takesDir(sessionId, dubId), fileName);
  }
  peaks(sessionId: string, dubId: string, revision: number): string {
    return path.join(this.dir(sessionId, dubId), 'peaks', `${revisionStem(revision)}.json`);
  }
}

export function revisionStem(number: number): string {
  return `r${String(number).padStart(4, '0')}`;
}

/**
 * Removes what a crash can leave behind: dub folders no row owns (an upload cut short), revision files
 * no row names (a revoice killed between its rename and its commit), temporary files, and the work
 * folders of revoices that are no longer running. Runs at start, before jobs resume.
 */
export async function sweepDubFiles(files: DubFiles, layout: DataLayout, store: DubStore): Promise<number> {
  let removed = 0;
  const remove = (target: string) => {
    fs.rmSync(target, { recursive: true, force: true });
    removed++;
  };
  const known = new Map((await store.allDubIds()).map((d) => [d.dubId, d.sessionId]));
  for (const sessionId of fs.existsSync(layout.recordings) ? fs.readdirSync(layout.recordings) : []) {
    const dubsDir = path.join(layout.recording(sessionId), 'dubs');
    if (!fs.existsSync(dubsDir)) continue;
    for (const dubId of fs.readdirSync(dubsDir)) {
      if (known.get(dubId) !== sessionId) {
        remove(path.join(dubsDir, dubId));
        continue;
      }
      const revisionsDir = files.revisionsDir(sessionId, dubId);
      const named = new Set((await store.revisions(dubId)).map((r) => r.fileName));
      for (const name of fs.existsSync(revisionsDir) ? fs.readdirSync(revisionsDir) : []) {
        if (!named.has(name)) remove(path.join(revisionsDir, name));
      }
      const workDir = path.join(files.dir(sessionId, dubId), 'work');
      const active = new Set((await store.revoices(dubId)).filter((r) => r.status === 'queued' || r.status === 'running').map((r) => r.id));
      for (const name of fs.existsSync(workDir) ? fs.readdirSync(workDir) : []) {
        if (!active.has(name)) remove(path.join(workDir, name));
        else for (const file of fs.readdirSync(path.join(workDir, name))) if (file.endsWith('.tmp')) remove(path.join(workDir, name, file));
      }
      for (const name of fs.readdirSync(files.dir(sessionId, dubId))) {
        if (name.endsWith('.tmp')) remove(path.join(files.dir(sessionId, dubId), name));
      }
    }
  }
  return removed;
}
