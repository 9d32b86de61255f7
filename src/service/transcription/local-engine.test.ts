import { describe, expect, it, vi } from 'vitest';
import { alternatingVoices as voices } from '../../../test/helpers/signals';
import { SAMPLE_RATE, type DiarizationResult, type Span } from '../speech/types';
import { createSileroVad } from '../speech/vad/silero';
import { createServiceDiarizer } from './local-engine';
import type { DiarizationCheckpoints } from './diarization-checkpoints';

const alternatingVoices = (seconds: number) => voices(seconds, SAMPLE_RATE, 7);

function memoryCheckpoints(): DiarizationCheckpoints & { saved: { speech?: Span[]; result?: DiarizationResult } } {
  const saved: { speech?: Span[]; result?: DiarizationResult } = {};
  return {
    saved,
    speech: () => saved.speech ?? null,
    saveSpeech: (spans) => (saved.speech = spans),
    result: () => saved.result ?? null,
    saveResult: (result) => (saved.result = result),
  };
}

describe('createServiceDiarizer', () => {
  it('serves plain and checkpointed requests on one warm thread, and ends it on close', async () => {
    const service = createServiceDiarizer();
    service.warm();
    service.warm();
    expect(service.threads.started).toBe(1);
    const plain = await service.diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
    const checkpoints = memoryCheckpoints();
    let kept = 0;
    const durable = await service.checkpointed(checkpoints, () => kept++).diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
    expect(durable).toEqual(plain);
    expect(checkpoints.saved.result).toEqual(plain);
    expect(checkpoints.saved.speech!.length).toBeGreaterThan(0);
    expect(kept).toBe(1);
    expect(plain.turns.length).toBeGreaterThan(0);
    expect(service.threads.started).toBe(1);
    expect(service.threads.alive).toBe(1);

    await service.close();
    expect(service.threads.alive).toBe(0);
    service.warm(); // after close: nothing starts
    expect(service.threads.started).toBe(1);
    await expect(service.diarizer.diarize(alternatingVoices(4), [{ start: 0, end: 4 }])).rejects.toThrow('closed');
  });

  it("runs its detector on a given detector's model and leaves that model to its owner", async () => {
    const base = createSileroVad();
    const service = createServiceDiarizer({ vad: base });
    try {
      const alone = createServiceDiarizer();
      const own = await alone.diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }]);
      await alone.close();
      expect(await service.diarizer.diarize(alternatingVoices(16), [{ start: 0, end: 16 }])).toEqual(own);
      const release = vi.spyOn(((await import('onnxruntime-node')).InferenceSession as unknown as { prototype: { release(): Promise<void> } }).prototype, 'release');
      try {
        await service.close();
        expect(release).not.toHaveBeenCalled();
        await base.close();
        expect(release).toHaveBeenCalledTimes(1);
      } finally {
        release.mockRestore();
      }
    } finally {
      await base.close();
    }
  });
});
