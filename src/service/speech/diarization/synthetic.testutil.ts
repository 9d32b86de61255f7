/** Constructed "voices" for diarization tests: a glottal pulse train through formant resonators. */

export interface SyntheticVoice {
  f0: number;
  /** Formant sets (Hz) the voice cycles through, like changing vowels. */
  vowels: number[][];
}

export const VOICE_A: SyntheticVoice = {
  f0: 105,
  vowels: [
    [600, 1000, 2400],
    [350, 2000, 2800],
    [450, 1300, 2500],
  ],
};

export const VOICE_B: SyntheticVoice = {
  f0: 215,
  vowels: [
    [850, 1600, 3200],
    [400, 2500, 3400],
    [700, 1900, 3000],
  ],
};

/** Deterministic pseudo-random numbers (mulberry32), so tests never flake. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `seconds` of the voice at 16 kHz; vowels change every 0.3 s, pitch wobbles a little. */
export function synthesize(voice: SyntheticVoice, seconds: number, seed: number, rate = 16000): Float32Array {
  const random = rng(seed);
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  let phase = 0;
  const state = voice.vowels[0]!.map(() => [0, 0]);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const vowel = voice.vowels[Math.floor(t / 0.3 + seed) % voice.vowels.length]!;
    const f0 = voice.f0 * (1 + 0.05 * Math.sin(2 * Math.PI * 3 * t + seed));
    phase += f0 / rate;
    let x = 0.002 * (random() - 0.5);
    if (phase >= 1) {
      phase -= 1;
      x += 1;
    }
    vowel.forEach((formant, k) => {
      const bw = 80 + 40 * k;
      const r = Math.exp((-Math.PI * bw) / rate);
      const a1 = 2 * r * Math.cos((2 * Math.PI * formant) / rate);
      const a2 = -r * r;
      const s = state[k]!;
      const y = (1 - r) * x + a1 * s[0]! + a2 * s[1]!;
      s[1] = s[0]!;
      s[0] = y;
      x = y;
    });
    out[i] = x;
  }
  let peak = 0;
  for (const v of out) peak = Math.max(peak, Math.abs(v));
  for (let i = 0; i < n; i++) out[i] = (0.5 * out[i]!) / (peak || 1);
  return out;
}

/** Concatenates pieces end to end and returns the truth (start, end, voice index) beside the audio. */
export function alternate(
  pieces: { voice: SyntheticVoice; seconds: number }[],
  voices: SyntheticVoice[],
  rate = 16000,
): { pcm: Float32Array; truth: { start: number; end: number; voice: number }[] } {
  const parts = pieces.map((p, i) => synthesize(p.voice, p.seconds, i + 1, rate));
  const pcm = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  const truth: { start: number; end: number; voice: number }[] = [];
  let offset = 0;
  parts.forEach((p, i) => {
    pcm.set(p, offset);
    truth.push({
      start: offset / rate,
      end: (offset + p.length) / rate,
      voice: voices.indexOf(pieces[i]!.voice),
    });
    offset += p.length;
  });
  return { pcm, truth };
}
