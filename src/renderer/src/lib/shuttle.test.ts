import { describe, expect, it } from 'vitest';
import { MAX_SHUTTLE_RATE, nextShuttleRate, shuttleLabel } from './shuttle';

const press = (keys: string): number =>
  [...keys].reduce((rate, k) => nextShuttleRate(rate, k as 'j' | 'k' | 'l'), 0);

describe('nextShuttleRate', () => {
  it('plays forward on L and doubles on repeated L up to the maximum', () => {
    expect(press('l')).toBe(1);
    expect(press('ll')).toBe(2);
    expect(press('lll')).toBe(4);
    expect(press('llllll')).toBe(MAX_SHUTTLE_RATE);
  });

  it('plays in reverse on J and slows forward play on J', () => {
    expect(press('j')).toBe(-1);
    expect(press('jj')).toBe(-2);
    expect(press('lllj')).toBe(2);
    expect(press('llljj')).toBe(1);
    expect(press('llljjj')).toBe(-1);
    expect(press('jjl')).toBe(-1);
    expect(press('jl')).toBe(1);
  });

  it('stops on K', () => {
    expect(press('llk')).toBe(0);
    expect(press('jk')).toBe(0);
  });
});

describe('shuttleLabel', () => {
  it('names direction and speed', () => {
    expect(shuttleLabel(0)).toBe('■');
    expect(shuttleLabel(2)).toBe('▶ 2×');
    expect(shuttleLabel(-1)).toBe('◀ 1×');
  });
});
