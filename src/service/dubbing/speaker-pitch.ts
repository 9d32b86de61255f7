import fs from 'node:fs';
import { readFrames, readWavLayout } from '../media/wav';
import { MAX_TRACKED_SECONDS, speakerPitch, type SpeakerPitch } from '../speech/speakers/pitch-gender';

/** The rate stretches are tracked at: enough for any speaking pitch, and a third of a 48 kHz master's work. */
const TRACK_RATE = 16000;

/** Mono at about TRACK_RATE: channels averaged, then whole groups of samples averaged (a crude low-pass, ample below 500 Hz). */
function monoDecimated(interleaved: Float32Array, channels: number, sampleRate: number): { pcm: Float32Array; rate: number } {
  const group = Math.max(1, Math.floor(sampleRate / TRACK_RATE));
  const frames = Math.floor(interleaved.length / channels / group);
  const pcm = new Float32Array(frames);
  const width = group * channels;
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let k = i * width; k < (i + 1) * width; k++) sum += interleaved[k]!;
    pcm[i] = sum / width;
  }
  return { pcm, rate: sampleRate / group };
}

/**
 * Each speaker's pitch from the dub's WAV: the speaker's lines in order, up to MAX_TRACKED_SECONDS of
 * them, read from the file (never the whole of it) and tracked (speech/speakers/pitch-gender.ts).
 * Overlapping speech counts for every speaker in it, as the lines say.
 */
export function measureSpeakerPitch(wavFile: string, lines: ReadonlyArray<{ speaker: string; start: number; end: number }>): Record<string, SpeakerPitch> {
  const fd = fs.openSync(wavFile, 'r');
  try {
    const layout = readWavLayout(fd);
    const bySpeaker = new Map<string, Array<{ start: number; end: number }>>();
    for (const line of [...lines].sort((a, b) => a.start - b.start)) {
      const list = bySpeaker.get(line.speaker) ?? [];
      bySpeaker.set(line.speaker, list);
      list.push(line);
    }
    const out: Record<string, SpeakerPitch> = {};
    for (const [speaker, spans] of bySpeaker) {
      const stretches: Float32Array[] = [];
      let rate = layout.sampleRate;
      let left = MAX_TRACKED_SECONDS;
      for (const span of spans) {
        if (left <= 0) break;
        const seconds = Math.min(left, span.end - span.start);
        if (!(seconds > 0)) continue;
        left -= seconds;
        const start = Math.floor(span.start * layout.sampleRate);
        const mono = monoDecimated(readFrames(fd, layout, start, Math.ceil(seconds * layout.sampleRate)), layout.channels, layout.sampleRate);
        stretches.push(mono.pcm);
        rate = mono.rate;
      }
      out[speaker] = speakerPitch(stretches, rate);
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}
