import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type WaveSurfer from 'wavesurfer.js';
import type { Timebase } from '../lib/timecode';
import { createPlayerStore } from '../state/player-store';
import { Transport } from './transport';

/** Just enough of WaveSurfer for the transport: a clock, a play state and event handlers. */
class FakeWaveSurfer {
  time = 0;
  playing = false;
  rate = 1;
  zoomed = 0;
  handlers = new Map<string, ((...a: unknown[]) => void)[]>();
  on(event: string, fn: (...a: unknown[]) => void) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
    return () => undefined;
  }
  emit(event: string, ...args: unknown[]) {
    this.handlers.get(event)?.forEach((fn) => fn(...args));
  }
  setPlaybackRate(rate: number) {
    this.rate = rate;
  }
  async play() {
    this.playing = true;
  }
  pause() {
    this.playing = false;
    this.emit('pause');
  }
  isPlaying() {
    return this.playing;
  }
  getCurrentTime() {
    return this.time;
  }
  /** Set to drop the next seek, as wavesurfer does with one made while the media is still seeking. */
  dropNextSeek = false;
  media = Object.assign(new EventTarget(), { currentTime: 0 });
  getMediaElement() {
    return this.media;
  }
  setTime(t: number) {
    if (this.dropNextSeek) {
      this.dropNextSeek = false;
      return;
    }
    // Media elements keep whole microseconds, truncating, as Chromium does.
    this.time = Math.floor(t * 1e6) / 1e6;
    this.media.currentTime = this.time;
    this.emit('timeupdate', this.time);
  }
  getWidth() {
    return 1000;
  }
  zoom(px: number) {
    this.zoomed = px;
  }
  scrolledTo = 0;
  getScroll() {
    return this.scrolledTo * this.zoomed;
  }
  setScrollTime(t: number) {
    this.scrolledTo = t;
  }
}

let frames: ((now: number) => void)[] = [];
beforeEach(() => {
  frames = [];
  vi.stubGlobal('requestAnimationFrame', (fn: (now: number) => void) => frames.push(fn));
  vi.stubGlobal('cancelAnimationFrame', () => undefined);
});
afterEach(() => vi.unstubAllGlobals());

function setup(timebase: Timebase | null = null) {
  const ws = new FakeWaveSurfer();
  const store = createPlayerStore(100);
  const transport = new Transport(ws as unknown as WaveSurfer, store, () => timebase);
  return { ws, store, transport };
}

describe('Transport', () => {
  it('shuttles forward with doubling rates and stops on K', () => {
    const { ws, store, transport } = setup();
    transport.shuttle('l');
    expect(ws.playing).toBe(true);
    transport.shuttle('l');
    expect(ws.rate).toBe(2);
    expect(store.getState().rate).toBe(2);
    transport.shuttle('k');
    expect(ws.playing).toBe(false);
    expect(store.getState().rate).toBe(0);
  });

  it('plays in reverse by moving the playhead back each frame', () => {
    const { ws, store, transport } = setup();
    transport.seek(10);
    transport.shuttle('j');
    expect(ws.playing).toBe(false);
    expect(store.getState().rate).toBe(-1);
    frames.shift()!(1000);
    frames.shift()!(1500); // half a second later
    expect(ws.time).toBeCloseTo(9.5, 6);
  });

  it('steps exactly one 29.97 frame even though the media clock truncates', () => {
    const { ws, transport } = setup({ frameRate: '29.97', dropFrame: true, startTimecode: null });
    for (let i = 0; i < 100; i++) transport.stepFrames(1);
    // 100 frames of 1001/30000 s, never losing a frame to truncation.
    expect(Math.floor((ws.time * 30000) / 1001)).toBe(100);
    transport.stepFrames(-1);
    expect(Math.floor((ws.time * 30000) / 1001)).toBe(99);
  });

  it('sets in and out points and drops an out point before a new in point', () => {
    const { store, transport } = setup();
    transport.seek(5);
    transport.markIn();
    transport.seek(8);
    transport.markOut();
    expect(store.getState()).toMatchObject({ inPoint: 5, outPoint: 8 });
    transport.seek(9);
    transport.markIn();
    expect(store.getState()).toMatchObject({ inPoint: 9, outPoint: null });
  });

  it('scrolls a zoomed view to a jump target outside it', () => {
    const { ws, transport } = setup();
    transport.setZoom(10); // 1000 px wide at 10 px/s shows 100 s; the fake duration is 100 s
    transport.setZoom(50); // now 20 s are visible
    ws.scrolledTo = 0;
    transport.seek(60);
    expect(ws.scrolledTo).toBeGreaterThan(40);
    expect(ws.scrolledTo).toBeLessThanOrEqual(60);
    const before = ws.scrolledTo;
    transport.seek(62); // still in view: no scroll
    expect(ws.scrolledTo).toBe(before);
  });

  it('stops forward play when the media pauses by itself', () => {
    const { ws, store, transport } = setup();
    transport.playPause();
    ws.pause();
    expect(store.getState().rate).toBe(0);
  });
  it('plays in→out once and stops on the out point', () => {
    const { ws, store, transport } = setup();
    store.setState({ inPoint: 10, outPoint: 12 });
    transport.seek(50);
    expect(transport.playRange(false)).toBe(true);
    expect(ws.time).toBeCloseTo(10, 3);
    expect(ws.playing).toBe(true);
    expect(store.getState().rangePlay).toBe('once');
    ws.setTime(11.5);
    expect(ws.playing).toBe(true);
    ws.setTime(12.03);
    expect(ws.playing).toBe(false);
    expect(store.getState()).toMatchObject({ rate: 0, rangePlay: null, currentTime: 12 });
  });

  it('does not take a report of where the media was before the seek for the range ending', () => {
    const { ws, store, transport } = setup();
    store.setState({ inPoint: 10, outPoint: 12 });
    transport.seek(12);
    ws.dropNextSeek = true;
    transport.playRange(false);
    // The media dropped the seek and still says 12 (the out point): the range plays on, from its start.
    ws.emit('timeupdate', 12);
    expect(store.getState().rangePlay).toBe('once');
    ws.setTime(10.02);
    ws.setTime(11);
    expect(ws.playing).toBe(true);
    ws.setTime(12.03);
    expect(store.getState()).toMatchObject({ rate: 0, rangePlay: null });
  });

  it('plays the range when the media ends where it was before the range\'s seek took (End, then P)', () => {
    const { ws, store, transport } = setup();
    store.setState({ duration: 31.6, inPoint: 2, outPoint: 4 });
    transport.seek(31.6);
    ws.dropNextSeek = true;
    transport.playRange(false);
    // The media never left the end: it pauses and reports the end.
    ws.pause();
    ws.emit('finish');
    expect(ws.time).toBeCloseTo(2, 2);
    expect(ws.playing).toBe(true);
    expect(store.getState()).toMatchObject({ rate: 1, rangePlay: 'once' });
    ws.setTime(3);
    ws.setTime(4.03);
    expect(store.getState()).toMatchObject({ rate: 0, rangePlay: null });
    // A media that ends again before reaching the range is not retried for ever: the stop stands.
    transport.seek(31.6);
    ws.dropNextSeek = true;
    transport.playRange(false);
    ws.pause();
    ws.emit('finish');
    ws.dropNextSeek = true;
    ws.pause();
    ws.emit('finish');
    expect(store.getState().rate).toBe(0);
  });

  it("asks for the range's start again when the media finishes a seek elsewhere after P (its own seek dropped)", () => {
    const { ws, store, transport } = setup();
    store.setState({ duration: 31.6, inPoint: 2, outPoint: 4 });
    // End, then Shift+O: the media is still seeking when P asks for the range's start, which it drops.
    transport.seek(31.6);
    transport.seek(4);
    ws.dropNextSeek = true;
    transport.playRange(false);
    expect(ws.time).toBeCloseTo(4, 2);
    // The earlier seek lands at the out point, outside the range: the range's start is asked for again.
    ws.media.dispatchEvent(new Event('seeked'));
    expect(ws.time).toBeCloseTo(2, 2);
    expect(store.getState()).toMatchObject({ rate: 1, rangePlay: 'once' });
    ws.setTime(3);
    ws.setTime(4.03);
    expect(store.getState()).toMatchObject({ rate: 0, rangePlay: null });
  });

  it('loops in→out until stopped', () => {
    const { ws, store, transport } = setup();
    store.setState({ inPoint: 10, outPoint: 12 });
    transport.playRange(true);
    for (let lap = 0; lap < 3; lap++) {
      ws.setTime(12.02);
      expect(ws.time).toBeCloseTo(10, 3);
      expect(ws.playing).toBe(true);
    }
    transport.shuttle('k');
    expect(store.getState().rangePlay).toBeNull();
    ws.setTime(12.5);
    expect(ws.time).toBe(12.5);
  });

  it('ends a range play when the playhead is moved out of the range, and refuses without points', () => {
    const { ws, store, transport } = setup();
    expect(transport.playRange(false)).toBe(false);
    expect(ws.playing).toBe(false);
    store.setState({ inPoint: 90, outPoint: null });
    transport.playRange(true);
    transport.seek(20);
    expect(store.getState().rangePlay).toBeNull();
    ws.setTime(100);
    expect(ws.time).toBe(100);
  });
  it('counts steps from the last seek even when the media dropped it, and makes the dropped seek again', () => {
    const { ws, store, transport } = setup();
    transport.seek(1);
    ws.dropNextSeek = true;
    transport.stepSeconds(1); // the media stays at 1 s
    expect(ws.time).toBe(1);
    transport.stepSeconds(1);
    expect(ws.time).toBe(3);
    transport.markIn();
    expect(store.getState().inPoint).toBe(3);
    ws.dropNextSeek = true;
    transport.seek(7);
    expect(transport.currentTime).toBe(7);
    // The media finishes seeking elsewhere: the seek asked for is made again.
    ws.media.dispatchEvent(new Event('seeked'));
    expect(ws.time).toBe(7);
  });

  it('follows a click on the waveform rather than the last seek', () => {
    const { ws, transport } = setup();
    transport.seek(5);
    ws.emit('interaction', 9);
    ws.setTime(9);
    ws.media.dispatchEvent(new Event('seeked'));
    expect(ws.time).toBe(9);
    expect(transport.currentTime).toBe(9);
  });
});
