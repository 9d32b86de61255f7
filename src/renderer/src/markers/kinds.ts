/**
 * How each marker kind looks and is named: one registry for the waveform layer, the legend and the hover
 * card. A kind is `prefix.type` (`condition.hum`, `issue.clipping`, `event.applause`, `moment.select`,
 * `delivery.rushed`). A problem type keeps its colour and shape whether the whole recording has it
 * (conditions lane) or one line (line quality lane); the lane tells the two apart. Types the registry does
 * not know yet (the service may add some) still get a stable colour and a readable name.
 */
import type { MarkerShape } from './shapes';

export interface KindStyle {
  label: string;
  colour: string;
  shape: MarkerShape;
}

/** Recording problems, shared by conditions and per-line quality issues. */
const PROBLEMS: Record<string, KindStyle> = {
  clipping: { label: 'Clipping', colour: '#e5484d', shape: 'triangle' },
  hum: { label: 'Hum', colour: '#f5a524', shape: 'square' },
  noise: { label: 'Noise', colour: '#9aa5b5', shape: 'circle' },
  wind: { label: 'Wind', colour: '#4fc3f7', shape: 'hexagon' },
  reverb: { label: 'Reverb', colour: '#a371f7', shape: 'diamond' },
  off_mic: { label: 'Off-mic', colour: '#f06292', shape: 'triangle-down' },
  plosive: { label: 'Plosives', colour: '#ff8a65', shape: 'star' },
  plosives: { label: 'Plosives', colour: '#ff8a65', shape: 'star' },
  low_level: { label: 'Low level', colour: '#78909c', shape: 'triangle-down' },
  low_snr: { label: 'Low SNR', colour: '#9aa5b5', shape: 'hexagon' },
  low_quality: { label: 'Low quality', colour: '#c0ca33', shape: 'cross' },
};

const BY_PREFIX: Record<string, Record<string, KindStyle>> = {
  condition: PROBLEMS,
  issue: PROBLEMS,
  event: {
    applause: { label: 'Applause', colour: '#2fbf71', shape: 'circle' },
    laughter: { label: 'Laughter', colour: '#ffd54f', shape: 'star' },
    cheering: { label: 'Cheering', colour: '#26c6da', shape: 'triangle' },
    music: { label: 'Music', colour: '#ce93d8', shape: 'square' },
    pace_shift: { label: 'Pace shift', colour: '#4f9cf9', shape: 'diamond' },
  },
  // The analysis' own lanes: moments worth a look and delivery labels.
  moment: {
    select: { label: 'Select', colour: '#2fbf71', shape: 'star' },
    unusable: { label: 'Unusable', colour: '#e5484d', shape: 'cross' },
    trim: { label: 'Trim', colour: '#9aa5b5', shape: 'triangle-down' },
  },
  delivery: {
    rushed: { label: 'Rushed', colour: '#ff7043', shape: 'triangle' },
    flat: { label: 'Flat', colour: '#90a4ae', shape: 'square' },
    emphatic: { label: 'Emphatic', colour: '#ffca28', shape: 'star' },
    hesitant: { label: 'Hesitant', colour: '#ab47bc', shape: 'circle' },
    mumbled: { label: 'Mumbled', colour: '#8d6e63', shape: 'hexagon' },
    trailing_off: { label: 'Trailing off', colour: '#78909c', shape: 'triangle-down' },
    slow: { label: 'Slow', colour: '#5c6bc0', shape: 'diamond' },
    quiet: { label: 'Quiet', colour: '#b0bec5', shape: 'circle' },
    // Flags beside the labels: a long pause (measured) and a restart (located from the words).
    long_pause: { label: 'Long pause', colour: '#26a69a', shape: 'square' },
    restart: { label: 'Restart', colour: '#ec407a', shape: 'cross' },
  },
  // The editor's own markers (the Markers panel), one kind.
  own: {
    marker: { label: 'Marker', colour: '#f2f2f2', shape: 'triangle-down' },
  },
};

const FALLBACK_COLOURS = ['#80cbc4', '#f48fb1', '#aed581', '#ffb74d', '#9fa8da', '#bcaaa4'];
const FALLBACK_SHAPES: MarkerShape[] = ['circle', 'square', 'diamond', 'hexagon'];

/** "off_mic" → "Off mic". */
export function humanize(id: string): string {
  const words = id.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : id;
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}

export function kindOf(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}

/** The type part of a kind (`event.applause` → `applause`). */
export function typeOf(kind: string): string {
  const dot = kind.indexOf('.');
  return dot < 0 ? kind : kind.slice(dot + 1);
}

/** The registry's style for a kind, null when the registry does not know it. */
export function knownStyle(kind: string): KindStyle | null {
  const dot = kind.indexOf('.');
  const prefix = dot < 0 ? '' : kind.slice(0, dot);
  return BY_PREFIX[prefix]?.[typeOf(kind)] ?? null;
}

/**
 * The style of a problem named without its lane (a summary watch-out's kind: `clipping`, `hesitant`,
 * `unusable`): the first lane that knows it, line quality, then delivery, then moments.
 */
export function problemStyle(type: string): KindStyle {
  for (const prefix of ['issue', 'delivery', 'moment']) {
    const known = knownStyle(kindOf(prefix, type));
    if (known) return known;
  }
  return kindStyle(kindOf('issue', type));
}

export function kindStyle(kind: string): KindStyle {
  const type = typeOf(kind);
  const known = knownStyle(kind);
  if (known) return known;
  const h = hash(type);
  return {
    label: humanize(type),
    colour: FALLBACK_COLOURS[h % FALLBACK_COLOURS.length]!,
    shape: FALLBACK_SHAPES[h % FALLBACK_SHAPES.length]!,
  };
}
