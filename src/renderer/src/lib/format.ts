/** Small display formatters. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 && u > 0 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** Duration as H:MM:SS or M:SS. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Project key from a display name: lower case, [a-z0-9_-], at most 64 characters. */
export function suggestKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

const SPEAKER_COLOURS = [
  '#4f9cf9',
  '#f5a524',
  '#2fbf71',
  '#e5484d',
  '#a371f7',
  '#12a594',
  '#f76b15',
  '#d6409f',
];

/** A stable colour per speaker label (S1, S2, …), by its number so colours match across views. */
export function speakerColor(label: string, alpha = 1): string {
  const n = Number(/\d+/.exec(label)?.[0] ?? '0');
  const hex = SPEAKER_COLOURS[(Math.max(1, n) - 1) % SPEAKER_COLOURS.length]!;
  if (alpha >= 1) return hex;
  const r = parseInt(hex.slice(1, 3), 16);
  const g = parseInt(hex.slice(3, 5), 16);
  const b = parseInt(hex.slice(5, 7), 16);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
