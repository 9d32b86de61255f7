/**
 * Transport control of one recording: play/pause, J/K/L shuttle (reverse by stepping the playhead,
 * since media elements cannot play backwards), frame/second steps, in/out points, zoom. Owns no DOM;
 * drives the wavesurfer instance and mirrors its state into the player store.
 */
import type WaveSurfer from 'wavesurfer.js';
import { markedRange, rangeStep, type TimeRange } from '../lib/in-out';
import { nextShuttleRate, type ShuttleKey } from '../lib/shuttle';
import { stepFrames, type Timebase } from '../lib/timecode';
import type { PlayerStore } from '../state/player-store';

export const ZOOM_LEVELS = [0, 2, 5, 10, 20, 50, 100, 200, 400];

/**
 * Chromium keeps media time in whole microseconds and truncates, so a seek to an exact frame start can
 * read back a hair earlier, in the previous frame. Landing 10 µs into the frame (under 0.1% of a
 * 60 fps frame) keeps frame steps on the intended frame.
 */
const MEDIA_CLOCK_GUARD = 1e-5;

/** Seeks to a range's start made again when the media's seeks land elsewhere; more would be a media fault. */
const MAX_RANGE_RESEEKS = 5;

export class Transport {
  private reverseFrame = 0;
  private lastTick = 0;
  /** `reached`: the media has reported a time inside the range since it was asked to play it. */
  private range: (TimeRange & { loop: boolean; reached: boolean; retried?: boolean; reseeks?: number }) | null = null;
  /**
   * Where the last seek asked to be while stopped. wavesurfer drops a seek made while the media element is
   * still seeking to the one before (its 'seeking' handler clears the pending time), so quick steps (Shift+→
   * three times) lost one on a busy machine: the steps count from here, and a dropped seek is made again.
   */
  private target: number | null = null;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly ws: WaveSurfer,
    private readonly store: PlayerStore,
    private readonly timebase: () => Timebase | null,
  ) {
    this.unsubscribe.push(
      ws.on('timeupdate', (t) => store.setState({ currentTime: t })),
      ws.on('finish', () => {
        // The media ended where it was before the range's seek took (after End, a seek made while the media was
        // still seeking is dropped): that is not the range's end. Seek to its start again and play, once.
        const range = this.range;
        if (range && !range.reached && !range.retried) {
          range.retried = true;
          // Playing first: a report of the new time while stopped would end the range play.
          this.setRate(1);
          this.seekRangeStart(range);
          return;
        }
        store.setState({ rate: 0 });
      }),
      // A pause not asked for by the shuttle (media ended, device change) stops forward play.
      ws.on('pause', () => {
        if (store.getState().rate > 0) store.setState({ rate: 0 });
      }),
      store.subscribe((s) => this.followRange(s.currentTime, s.rate)),
      // A click or drag on the waveform puts the playhead where the user chose.
      ws.on('interaction', () => {
        this.target = null;
      }),
    );
    const media = typeof ws.getMediaElement === 'function' ? ws.getMediaElement() : null;
    if (media) {
      const onSeeked = () => {
        const target = this.target;
        if (target !== null && store.getState().rate === 0 && Math.abs(media.currentTime - target) > 0.01) ws.setTime(target);
        // A range asked to play whose own seek was dropped (P while the media was still seeking after End, Shift+I,
        // Shift+O): the media finished seeking outside the range, so ask for its start again (a few times at most).
        const range = this.range;
        if (range && !range.reached && store.getState().rate > 0 && (range.reseeks ?? 0) < MAX_RANGE_RESEEKS) {
          const at = media.currentTime;
          if (at < range.start - MEDIA_CLOCK_GUARD || at >= range.end) {
            range.reseeks = (range.reseeks ?? 0) + 1;
            this.seekRangeStart(range);
          }
        }
      };
      media.addEventListener('seeked', onSeeked);
      this.unsubscribe.push(() => media.removeEventListener('seeked', onSeeked));
    }
  }

  /**
   * Seeks the media element itself. wavesurfer keeps a seek asked for while the media cannot play yet (seeking,
   * or ended) as a pending time, which the next 'seeking' event discards when it is elsewhere: after End the
   * range's seek was lost that way and P played from the end (nothing). The element takes any seek once it has
   * its metadata.
   */
  private seekMedia(t: number): void {
    const media = typeof this.ws.getMediaElement === 'function' ? this.ws.getMediaElement() : null;
    if (media && media.readyState >= 1) media.currentTime = t;
  }

  /** Asks again for a playing range's start, through wavesurfer and the media element both (see `seekMedia`). */
  private seekRangeStart(range: TimeRange): void {
    this.ws.setTime(range.start + MEDIA_CLOCK_GUARD);
    this.seekMedia(range.start + MEDIA_CLOCK_GUARD);
  }

  /** The playhead: the last seek's target while stopped (see `target`), else the media's clock. */
  private position(): number {
    return this.target !== null && this.store.getState().rate === 0 ? this.target : this.ws.getCurrentTime();
  }

  /**
   * Plays from the in point to the out point (an in point alone: to the end; an out point alone: from the
   * start), once or in a loop until stopped. False when no range is marked.
   */
  playRange(loop: boolean): boolean {
    const { inPoint, outPoint, duration } = this.store.getState();
    const range = markedRange(inPoint, outPoint, duration);
    if (!range) return false;
    this.range = null;
    this.seek(range.start + MEDIA_CLOCK_GUARD);
    this.seekMedia(range.start + MEDIA_CLOCK_GUARD);
    this.range = { ...range, loop, reached: false };
    this.setRate(1);
    this.store.setState({ rangePlay: loop ? 'loop' : 'once' });
    return true;
  }

  /** While a range plays: back to its start at its end when looping, else stop on the out point. */
  private followRange(t: number, rate: number): void {
    const range = this.range;
    if (!range) return;
    // Until the seek to the range's start takes, the media may still report where it was (the out point, say,
    // after Shift+O): that is not the range ending. The media's own clock says when it got there (the store's
    // time is the seek's target at once).
    if (!range.reached) {
      const media = this.ws.getCurrentTime();
      if (media < range.start - MEDIA_CLOCK_GUARD || media >= range.end) return;
      range.reached = true;
    }
    const step = rate <= 0 ? 'leave' : rangeStep(t, range, range.loop);
    if (step === null) return;
    if (step === 'leave' || step === 'stop') {
      this.range = null;
      this.store.setState({ rangePlay: null });
      if (step === 'stop') {
        this.setRate(0);
        this.seek(range.end);
      }
      return;
    }
    this.seek(step + MEDIA_CLOCK_GUARD);
  }

  get duration(): number {
    return this.store.getState().duration;
  }

  get currentTime(): number {
    return this.position();
  }

  playPause(): void {
    this.setRate(this.store.getState().rate === 0 ? 1 : 0);
  }

  shuttle(key: ShuttleKey): void {
    this.setRate(nextShuttleRate(this.store.getState().rate, key));
  }

  stop(): void {
    this.setRate(0);
  }

  setRate(rate: number): void {
    if (rate !== 0) this.target = null;
    this.store.setState({ rate });
    cancelAnimationFrame(this.reverseFrame);
    if (rate > 0) {
      this.ws.setPlaybackRate(rate, true);
      if (!this.ws.isPlaying()) {
        this.ws.play().catch((error: unknown) => {
          this.store.setState({ rate: 0, audioError: (error as Error).message });
        });
      }
      return;
    }
    if (this.ws.isPlaying()) this.ws.pause();
    if (rate < 0) {
      this.lastTick = 0;
      this.reverseFrame = requestAnimationFrame(this.reverseStep);
    }
  }

  private readonly reverseStep = (now: number): void => {
    const rate = this.store.getState().rate;
    if (rate >= 0) return;
    const dt = this.lastTick ? (now - this.lastTick) / 1000 : 0;
    this.lastTick = now;
    const t = this.ws.getCurrentTime() + rate * dt;
    if (t <= 0) {
      this.seek(0);
      this.store.setState({ rate: 0 });
      return;
    }
    this.seek(t);
    this.reverseFrame = requestAnimationFrame(this.reverseStep);
  };

  seek(seconds: number): void {
    const t = Math.min(Math.max(0, seconds), this.duration);
    this.ws.setTime(t);
    this.target = this.store.getState().rate === 0 ? t : null;
    this.store.setState({ currentTime: t });
    this.ensureVisible(t);
  }

  /** Wavesurfer scrolls with the playhead only while playing; jumps while paused must scroll too. */
  private ensureVisible(t: number): void {
    const pps = this.effectivePxPerSecond();
    const width = this.ws.getWidth();
    if (!(pps > 0) || !(width > 0)) return;
    const x = t * pps - this.ws.getScroll();
    if (x < 0 || x > width) this.ws.setScrollTime(Math.max(0, t - width / pps / 3));
  }

  /** Frame steps stop the shuttle first, as in an edit suite. */
  stepFrames(count: number): void {
    if (this.store.getState().rate !== 0) this.stop();
    const target = stepFrames(this.position(), count, this.timebase(), this.duration);
    this.seek(Math.min(this.duration, target + MEDIA_CLOCK_GUARD));
  }

  stepSeconds(count: number): void {
    this.seek(this.position() + count);
  }

  markIn(): void {
    const t = this.position();
    const { outPoint } = this.store.getState();
    this.store.setState({ inPoint: t, outPoint: outPoint !== null && outPoint <= t ? null : outPoint });
  }

  markOut(): void {
    const t = this.position();
    const { inPoint } = this.store.getState();
    this.store.setState({ outPoint: t, inPoint: inPoint !== null && inPoint >= t ? null : inPoint });
  }

  clearMarks(): void {
    this.store.setState({ inPoint: null, outPoint: null });
  }

  setZoom(pxPerSecond: number): void {
    this.ws.zoom(pxPerSecond);
    this.store.setState({ zoom: pxPerSecond });
    // Keep the playhead in view after zooming.
    const t = this.ws.getCurrentTime();
    const visible = this.ws.getWidth() / Math.max(1e-9, this.effectivePxPerSecond());
    this.ws.setScrollTime(Math.max(0, t - visible / 2));
  }

  effectivePxPerSecond(): number {
    const width = this.ws.getWidth();
    return Math.max(this.store.getState().zoom, this.duration > 0 ? width / this.duration : 0);
  }

  zoomIn(): void {
    const current = this.effectivePxPerSecond();
    const next = ZOOM_LEVELS.find((z) => z > current * 1.01);
    if (next !== undefined) this.setZoom(next);
  }

  zoomOut(): void {
    const current = this.effectivePxPerSecond();
    const fit = this.duration > 0 ? this.ws.getWidth() / this.duration : 0;
    const lower = [...ZOOM_LEVELS].reverse().find((z) => z < current * 0.99 && z > fit);
    this.setZoom(lower ?? 0);
  }

  destroy(): void {
    cancelAnimationFrame(this.reverseFrame);
    this.unsubscribe.forEach((u) => u());
  }
}
