import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/** Writes a file so readers see either the old or the new content, never half of it. */
export function writeFileAtomic(file: string, data: string | Buffer, mode = 0o644): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

/** Makes a rename durable: the directory entry itself must reach the disk. */
export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some platforms (Windows) cannot open directories; rename is still atomic there.
  }
}

/** Layout of the data folder. Recording folders are named by session id only, never by client input. */
export class DataLayout {
  /**
   * `node`: team mode's name for this process. The data folder is then shared by the team's nodes, and each
   * keeps its partial uploads and working files in a folder of its own, which only it empties.
   */
  constructor(
    readonly root: string,
    readonly node?: string,
  ) {}
  get database(): string {
    return path.join(this.root, 'takeline.db');
  }
  get recordings(): string {
    return path.join(this.root, 'recordings');
  }
  get uploads(): string {
    return this.node ? path.join(this.root, 'uploads', this.node) : path.join(this.root, 'uploads');
  }
  get secrets(): string {
    return path.join(this.root, 'secrets');
  }
  /** Working files of running engines (decoders' audio); emptied at start-up, so a crash leaves none behind. */
  get scratch(): string {
    return this.node ? path.join(this.root, 'scratch', this.node) : path.join(this.root, 'scratch');
  }
  /** Per project speaker acoustic adaptation (speakers/speaker-adaptation.ts) and its expanded model. */
  get adaptation(): string {
    return path.join(this.root, 'adaptation');
  }
  /** Held by the one service using this folder (storage/data-lock.ts). */
  get lock(): string {
    return path.join(this.root, 'service.lock');
  }
  /** The running service's address, for `npm run keys -- signin`. */
  get serviceUrl(): string {
    return path.join(this.root, 'service.url');
  }
  recording(sessionId: string): string {
    return path.join(this.recordings, sessionId);
  }
  /** The original upload inside a recording folder (`storedName` comes from the sessions table). */
  original(sessionId: string, storedName: string): string {
    return path.join(this.recording(sessionId), storedName);
  }
  /**
   * Makes the folders the process writes to. The desktop's service keeps everything here; a team's node (`node`
   * set) only its own partial uploads and working files: its records and keys are in the database, its files on
   * the storage (a folder store makes its folders as it writes), so it makes no `recordings/` or `secrets/`.
   */
  ensure(): void {
    fs.mkdirSync(this.root, { recursive: true });
    fs.mkdirSync(this.uploads, { recursive: true });
    fs.mkdirSync(this.scratch, { recursive: true, mode: 0o700 });
    if (this.node) return;
    fs.mkdirSync(this.recordings, { recursive: true });
    fs.mkdirSync(this.secrets, { recursive: true, mode: 0o700 });
  }
}
