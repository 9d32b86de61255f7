import { computePeaks, DEFAULT_PEAKS_PER_SECOND, type Peaks } from '../media/peaks';
import { isNoAudioStreamError, MediaDecodeError } from '../media/decode';
import { UnsupportedMediaError } from '../errors';
import type { MediaTools } from '../media/tools';
import type { StoredFiles } from '../storage/stored-files';
import type { SessionStore } from '../storage/session-store';

/** Waveform peaks are computed once per recording and stored beside it (a derived file), so a long file opens fast. */
export class PeaksCache {
  private readonly inFlight = new Map<string, Promise<Peaks>>();

  constructor(
    private readonly files: StoredFiles,
    private readonly sessions: SessionStore,
    private readonly tools: MediaTools,
  ) {}

  /**
   * Computes and stores the peaks now, in the background, so the recording's first open does not wait for a
   * decode of the whole file (4 s for an hour). A failure is left to the studio's own request, which reports it.
   */
  warm(sessionId: string): void {
    this.get(sessionId).catch(() => undefined);
  }

  async get(sessionId: string): Promise<Peaks> {
    const stored = await this.files.readPeaks(sessionId);
    if (stored !== null) {
      try {
        return JSON.parse(stored) as Peaks;
      } catch {
        // Unreadable (written by a version that crashed mid-write): computed again below.
      }
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
      peaks = await this.files.withOriginal(sessionId, stored, (file) => computePeaks(file, this.tools));
    } catch (error) {
      if (!isNoAudioStreamError(error)) {
        if (error instanceof MediaDecodeError) throw new UnsupportedMediaError(error.message, { code: 'undecodable' });
        throw error;
      }
      // A video without sound still gets a (flat) timeline of its length.
      const duration = (await this.sessions.summary(sessionId))?.duration ?? 0;
      peaks = { duration, peaks_per_second: DEFAULT_PEAKS_PER_SECOND, peaks: new Array(Math.ceil(duration * DEFAULT_PEAKS_PER_SECOND)).fill(0) };
    }
    // Not for a recording deleted meanwhile (a leftover would be an object no row names).
    if (await this.sessions.storedName(sessionId)) await this.files.writePeaks(sessionId, JSON.stringify(peaks));
    return peaks;
  }
}
