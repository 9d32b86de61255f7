import { describe, expect, it } from 'vitest';
import { DELIVERY_LABELS, MOMENT_TYPES } from '../../../shared/schemas/analysis';
import { humanize, kindStyle, knownStyle, problemStyle } from './kinds';

describe('marker kinds', () => {
  it('knows every moment type and delivery label the schema names, each with its own colour and shape', () => {
    const styles = [
      ...MOMENT_TYPES.map((t) => `moment.${t}`),
      ...DELIVERY_LABELS.map((l) => `delivery.${l}`),
    ].map((k) => knownStyle(k));
    expect(styles.every((s) => s !== null)).toBe(true);
    const moments = styles.slice(0, MOMENT_TYPES.length);
    expect(new Set(moments.map((s) => s!.colour)).size).toBe(moments.length);
    expect(new Set(moments.map((s) => s!.shape)).size).toBe(moments.length);
    expect(new Set(styles.map((s) => `${s!.colour} ${s!.shape}`)).size).toBe(styles.length);
  });

  it('gives an unknown kind a stable, readable style', () => {
    expect(knownStyle('delivery.mystery')).toBeNull();
    expect(kindStyle('delivery.mystery')).toEqual(kindStyle('delivery.mystery'));
    expect(kindStyle('delivery.mystery').label).toBe('Mystery');
    expect(humanize('trailing_off')).toBe('Trailing off');
  });

  it('styles a problem named without its lane from the first lane that knows it', () => {
    expect(problemStyle('clipping')).toBe(kindStyle('issue.clipping'));
    expect(problemStyle('hesitant')).toBe(kindStyle('delivery.hesitant'));
    expect(problemStyle('unusable')).toBe(kindStyle('moment.unusable'));
    expect(problemStyle('overlap').label).toBe('Overlap');
  });
});
