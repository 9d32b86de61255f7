import fs from 'node:fs';
import path from 'node:path';
import { computePeaks, DEFAULT_PEAKS_PER_SECOND, type Peaks } from '../media/peaks';
import { isNoAudioStreamError, MediaDecodeError } from '../media/decode';
import { UnsupportedMediaError } from '../errors';
import type { MediaTools } from '../media/tools';
import type { DataLayout } from '../storage/files';
import { writeFileAtomic } from '../storage/files';
import type { SessionStore } from '../storage/session-store';

/** Waveform peaks are computed once per recording and kept beside it, so a long file opens fast. */
export class PeaksCache {
  private readonly inFlight = new Map<string, Promise<Peaks>>();

  constructor(
    private readonly layout: DataLayout,
    private readonly sessions: SessionStore,
    private readonly tools: MediaTools,
  ) {}

  private file(sessionId: string): string {
    return path.join(this.layout.recording(sessionId), 'peaks.json');
  }

  async get(sessionId: string): Promise<Peaks> {
    try {
      return JSON.parse(await fs.promises.readFile(this.file(sessionId), 'utf8')) as Peaks;
    } catch {
      // Not computed yet.
    }
    let pending = this.inFlight.get(sessionId);
    if (!pending) {
      pending = this.compute(sessionId).finally(() => this.inFlight.delete(sessionId));
      this.inFlight.set(sessionId, pending);
    }
    return pending;
  }

  private async compute(sessionId: string): Promise<Peaks> {
    const stored = await this.sessions.storedName(sessionId);
    if (!stored) throw new Error('session has no stored file');
    let peaks: Peaks;
    try {
      peaks = await computePeaks(this.layout.original(sessionId, stored), this.tools);
    } catch (error) {
      if (!isNoAudioStreamError(error)) {
        if (error instanceof MediaDecodeError) throw new UnsupportedMediaError(error.message, { code: 'undecodable' });
        throw error;
      }
      // A video without sound still gets a (flat) timeline of its length.
      const duration = (await this.sessions.summary(sessionId))?.duration ?? 0;
      peaks = { duration, peaks_per_second: DEFAULT_PEAKS_PER_SECOND, peaks: new Array(Math.ceil(duration * DEFAULT_PEAKS_PER_SECOND)).fill(0) };
    }
    if (fs.existsSync(this.layout.recording(sessionId))) writeFileAtomic(this.file(sessionId), JSON.stringify(peaks));
    return peaks;
  }
}
