import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelsDir } from '../../../../test/helpers/paths';
import { ModelFileError } from '../../models/model-files';
import { createDnsmos } from './dnsmos';
import { gainForSnr, haveAudio, loadAudio, mix, whiteNoise } from './signals.testutil';

const haveModel = existsSync(join(modelsDir, 'dnsmos/sig_bak_ovr.onnx'));
const dnsmos = createDnsmos(modelsDir);
afterAll(() => dnsmos.close());

type Four = [sig: number, bak: number, ovrl: number, p808: number];
const four = (m: { sig: number; bak: number; ovrl: number; p808: number }): Four => [
  m.sig,
  m.bak,
  m.ovrl,
  m.p808,
];
const show = (v: number[]) => v.map((x) => x.toFixed(3)).join(' / ');

describe.skipIf(!haveModel || !haveAudio)('DNSMOS (models/dnsmos README reference values)', () => {
  it.each([
    ['ljspeech_LJ001-0001', [3.613, 4.006, 3.313, 4.253]],
    ['librispeech_test_clean_1089-134686-0000', [3.671, 4.223, 3.461, 4.212]],
  ] as [string, Four][])('reproduces %s within 0.01 (SIG / BAK / OVRL / P.808)', async (clip, want) => {
    const got = four(await dnsmos.score(await loadAudio(`asr/${clip}.flac`)));
    console.log(`${clip}: got ${show(got)}, reference ${show(want)}`);
    got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(0.01));
  });

  it('ranks white noise at 20 and 9 dB SNR and noise alone as the reference does', async () => {
    // The README does not give the noise realisation, and one Gaussian draw differs from another by up to
    // ±0.15 in BAK and ±0.07 in SIG at the same SNR (14 draws: SIG 3.40–3.53, BAK 2.27–2.58 at 20 dB); these
    // clips use a fixed seed at exactly 20 / 9 dB (whole-clip power), so the bounds are that spread.
    const clean = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const noise = whiteNoise(clean.length, 20_240_601);
    const at20 = four(await dnsmos.score(mix(clean, noise, gainForSnr(clean, noise, 20))));
    const at9 = four(await dnsmos.score(mix(clean, noise, gainForSnr(clean, noise, 9))));
    const alone = four(await dnsmos.score(noise.map((v) => v * 0.03)));
    const ref20: Four = [3.522, 2.738, 2.523, 3.341];
    const ref9: Four = [3.513, 1.768, 2.004, 2.702];
    const refAlone: Four = [1.142, 1.106, 1.094, 2.117];
    console.log(`20 dB: ${show(at20)} (reference ${show(ref20)})`);
    console.log(` 9 dB: ${show(at9)} (reference ${show(ref9)})`);
    console.log(`noise: ${show(alone)} (reference ${show(refAlone)})`);
    // Speech quality (SIG) barely moves with additive noise; background (BAK) and overall (OVRL) fall with it.
    expect(Math.abs(at20[0] - ref20[0])).toBeLessThan(0.15);
    expect(Math.abs(at9[0] - ref9[0])).toBeLessThan(0.1);
    expect(Math.abs(at9[1] - ref9[1])).toBeLessThan(0.15);
    expect(Math.abs(at9[2] - ref9[2])).toBeLessThan(0.1);
    expect(Math.abs(at20[1] - ref20[1])).toBeLessThan(0.5);
    expect(Math.abs(at20[2] - ref20[2])).toBeLessThan(0.3);
    for (let i = 0; i < 4; i++) {
      expect(Math.abs(alone[i]! - refAlone[i]!)).toBeLessThan(0.1);
      if (i > 0) expect(at20[i]!).toBeGreaterThan(at9[i]!);
    }
  });

  it('scores several clips in one batch exactly as one by one', async () => {
    const a = await loadAudio('asr/pocketsphinx_cards_001.flac');
    const b = await loadAudio('asr/jfk_jfk.flac');
    const [many1, many2] = await dnsmos.scoreMany([a, b]);
    const one1 = await dnsmos.score(a);
    const one2 = await dnsmos.score(b);
    four(many1!).forEach((v, i) => expect(v).toBeCloseTo(four(one1)[i]!, 4));
    four(many2!).forEach((v, i) => expect(v).toBeCloseTo(four(one2)[i]!, 4));
    expect(many1!.source).toBe('heard');
    expect(dnsmos.windowsFor(b.length)).toBe(2);
  });

  it('stops when aborted and refuses an empty clip', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(dnsmos.score(new Float32Array(16_000), controller.signal)).rejects.toThrow(/abort/i);
    await expect(dnsmos.score(new Float32Array(0))).rejects.toThrow(RangeError);
  });
});

describe('DNSMOS model files', () => {
  it('names the folder when the models directory is not configured or the files are missing', async () => {
    const none = createDnsmos(null);
    await expect(none.score(new Float32Array(16_000))).rejects.toThrow(ModelFileError);
    await expect(none.score(new Float32Array(16_000))).rejects.toThrow(/dnsmos/);
    const missing = createDnsmos('/nonexistent-models');
    await expect(missing.score(new Float32Array(16_000))).rejects.toThrow(
      /dnsmos\/sig_bak_ovr\.onnx was not found/,
    );
    await none.close();
    await missing.close();
  });
});
