/** Times as an editor reads them: m:ss (h:mm:ss past an hour), rounded down to the second. */
export function clock(seconds: number): string {
  const t = Math.max(0, Math.floor(seconds + 1e-6));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A range this short is a point in time, written as one time. */
export const POINT_SECONDS = 0.05;
/** Ranges shorter than this are written to the tenth of a second, so they do not read as 0:27–0:27. */
export const TENTHS_UNDER_SECONDS = 2;

/** m:ss.t, to the tenth of a second. */
export function clockTenths(seconds: number): string {
  const tenths = Math.max(0, Math.round(seconds * 10));
  return `${clock(Math.floor(tenths / 10))}.${tenths % 10}`;
}

/**
 * A range as it is: whole seconds from the start's second to the end's (rounded up, so the written range holds
 * the real one); to the tenth when it is shorter than TENTHS_UNDER_SECONDS; one time for a point.
 */
export function clockRange(r: { start: number; end: number }): string {
  const start = r.start;
  const end = Math.max(r.start, r.end);
  if (end - start < POINT_SECONDS) return clockTenths(start);
  if (end - start < TENTHS_UNDER_SECONDS) {
    const a = clockTenths(Math.floor(start * 10 + 1e-6) / 10);
    const b = clockTenths(Math.ceil(end * 10 - 1e-6) / 10);
    return a === b ? a : `${a}–${b}`;
  }
  return `${clock(start)}–${clock(Math.ceil(end - 1e-6))}`;
}
