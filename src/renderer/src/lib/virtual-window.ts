/**
 * Windowing for long lists of variable-height rows (a 1-hour transcript has ~1000 segments and
 * ~10 000 words): only rows inside the viewport plus an overscan are rendered.
 */

/** Prefix sums: offsets[i] is the top of row i, offsets[n] the total height. */
export function rowOffsets(heights: ArrayLike<number>): Float64Array {
  const offsets = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) offsets[i + 1] = offsets[i]! + (heights[i] ?? 0);
  return offsets;
}

/** Index of the row containing y (clamped to the rows). */
export function rowAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Rows [start, end) to render for a viewport. */
export function visibleRange(
  offsets: Float64Array,
  scrollTop: number,
  viewportHeight: number,
  overscan = 4,
): { start: number; end: number } {
  const n = offsets.length - 1;
  if (n <= 0) return { start: 0, end: 0 };
  const first = rowAt(offsets, scrollTop);
  const last = rowAt(offsets, scrollTop + viewportHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(n, last + 1 + overscan) };
}

/** Rough height before a row is measured: header plus wrapped lines of text. */
export function estimateRowHeight(
  chars: number,
  charsPerLine: number,
  lineHeight: number,
  chrome: number,
): number {
  const lines = Math.max(1, Math.ceil(chars / Math.max(10, charsPerLine)));
  return chrome + lines * lineHeight;
}
