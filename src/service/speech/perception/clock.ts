/** Times as an editor reads them: m:ss (h:mm:ss past an hour), rounded down to the second. */
export function clock(seconds: number): string {
  const t = Math.max(0, Math.floor(seconds + 1e-6));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function clockRange(r: { start: number; end: number }): string {
  return `${clock(r.start)}–${clock(Math.max(r.start, r.end))}`;
}
