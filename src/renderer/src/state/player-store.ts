/** Playback state of one open recording; one store per recording view. */
import { createStore } from 'zustand/vanilla';

export interface PlayerState {
  currentTime: number;
  duration: number;
  /** Signed shuttle rate: 0 stopped, >0 forward, <0 reverse. */
  rate: number;
  inPoint: number | null;
  outPoint: number | null;
  /** Pixels per second; 0 fits the whole recording in view. */
  zoom: number;
  ready: boolean;
  audioError: string | null;
  /** The in→out range is playing (once, or in a loop); null when not. */
  rangePlay: 'once' | 'loop' | null;
}

export function createPlayerStore(duration: number) {
  return createStore<PlayerState>()(() => ({
    currentTime: 0,
    duration,
    rate: 0,
    inPoint: null,
    outPoint: null,
    zoom: 0,
    ready: false,
    audioError: null,
    rangePlay: null,
  }));
}

export type PlayerStore = ReturnType<typeof createPlayerStore>;
