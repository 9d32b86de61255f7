import { describe, expect, it } from 'vitest';
import { markedRange, nextMarkerTime, rangeStep } from './in-out';

describe('markedRange', () => {
  it('is the span between in and out', () => {
    expect(markedRange(2, 5.5, 10)).toEqual({ start: 2, end: 5.5 });
  });
  it('runs an in point alone to the end and an out point alone from the start', () => {
    expect(markedRange(7, null, 10)).toEqual({ start: 7, end: 10 });
    expect(markedRange(null, 3, 10)).toEqual({ start: 0, end: 3 });
  });
  it('is null with no points, and for an empty or inverted range', () => {
    expect(markedRange(null, null, 10)).toBeNull();
    expect(markedRange(4, 4, 10)).toBeNull();
    expect(markedRange(6, 4, 10)).toBeNull();
    expect(markedRange(10, null, 10)).toBeNull();
  });
  it('keeps points inside the recording', () => {
    expect(markedRange(-1, 12, 10)).toEqual({ start: 0, end: 10 });
  });
});

describe('rangeStep', () => {
  const r = { start: 2, end: 4 };
  it('keeps playing inside the range', () => {
    expect(rangeStep(2, r, false)).toBeNull();
    expect(rangeStep(3.99, r, true)).toBeNull();
    // Just before the start: the media clock after the seek.
    expect(rangeStep(1.9, r, true)).toBeNull();
  });
  it('stops at the out point, or goes back to the in point when looping', () => {
    expect(rangeStep(4, r, false)).toBe('stop');
    expect(rangeStep(4.2, r, false)).toBe('stop');
    expect(rangeStep(4.02, r, true)).toBe(2);
  });
  it('ends the range play when the playhead is moved away', () => {
    expect(rangeStep(0.5, r, true)).toBe('leave');
    expect(rangeStep(8, r, true)).toBe('leave');
  });
});

describe('nextMarkerTime', () => {
  const markers = [{ start: 5 }, { start: 1 }, { start: 3, at: 3.5 }, { start: 9 }];
  it('finds the next and previous marker in time order, whatever the list order', () => {
    expect(nextMarkerTime(markers, 0, 1)).toBe(1);
    expect(nextMarkerTime(markers, 1.2, 1)).toBe(3.5);
    expect(nextMarkerTime(markers, 6, -1)).toBe(5);
    expect(nextMarkerTime(markers, 3.6, -1)).toBe(3.5);
  });
  it('walks on from the marker the playhead is on', () => {
    expect(nextMarkerTime(markers, 5, 1)).toBe(9);
    expect(nextMarkerTime(markers, 5.02, -1)).toBe(3.5);
  });
  it('is null past the last (or before the first) marker and with none', () => {
    expect(nextMarkerTime(markers, 9, 1)).toBeNull();
    expect(nextMarkerTime(markers, 1, -1)).toBeNull();
    expect(nextMarkerTime([], 1, 1)).toBeNull();
  });
});
