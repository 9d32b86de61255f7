import { describe, expect, it } from 'vitest';
import { orderedWrites } from './ordered-writes';

describe('orderedWrites', () => {
  it('lands writes in the order they were pushed even when later ones are faster', async () => {
    const landed: number[] = [];
    const writes = orderedWrites(() => undefined);
    for (const [n, delay] of [[1, 30], [2, 0], [3, 10]] as const) {
      writes.push(() => new Promise<void>((resolve) => setTimeout(() => (landed.push(n), resolve()), delay)));
    }
    await writes.flush();
    expect(landed).toEqual([1, 2, 3]);
  });

  it('reports a failed write and goes on with the next', async () => {
    const errors: unknown[] = [];
    const landed: string[] = [];
    const writes = orderedWrites((error) => errors.push(error));
    writes.push(() => Promise.reject(new Error('disk')));
    writes.push(async () => landed.push('after'));
    await writes.flush();
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk']);
    expect(landed).toEqual(['after']);
  });
});
