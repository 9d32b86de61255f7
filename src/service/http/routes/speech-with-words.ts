import type { Response } from 'express';
import type { SpeechRequest, SpeechWithWords } from '../../../shared/schemas';
import type { ServiceContext } from '../../context';
import { f32leBytes, SPEECH_OUTPUT_RATE, startSpeechEncoder } from '../../media/encode';
import type { MediaTools } from '../../media/tools';
import type { VoiceEngineSpec } from '../../speech/synthesis/catalog';
import { speechChunks } from '../../speech/synthesis/text-chunks';
import { voiceRef } from '../../speech/synthesis/voice-registry';
import { SynthesisError, type SpokenWord, type VoiceEntry } from '../../speech/synthesis/voice';
import { NoWordTimingsError, shiftWords, wordTimings, type WordTimingSource } from '../../speech/synthesis/word-timings';
import { HttpError } from '../errors';

/** Encodes a whole reading in one of the speech formats (in memory: a speech input is at most 4096 characters). */
async function encodeAll(tools: MediaTools, format: SpeechRequest['response_format'], samples: Float32Array, rate: number): Promise<Buffer> {
  const child = startSpeechEncoder(tools, format, rate);
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-2000)));
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code));
    child.on('error', () => resolve(null));
  });
  child.stdin.end(f32leBytes(samples));
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg exited with code ${code}: ${stderr.trim()}`);
  return Buffer.concat(out);
}

/**
 * `POST /v1/audio/speech` with `timestamp_granularities: ["word"]`: the text is spoken sentence by sentence
 * as for the stream, each sentence's words timed (the engine's phone timings, else a forced alignment), and
 * the answer is JSON with the whole audio and the words on its timeline.
 */
export async function sendSpeechWithWords(ctx: ServiceContext, res: Response, body: SpeechRequest, spec: VoiceEngineSpec, voice: VoiceEntry): Promise<void> {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  });
  const signal = controller.signal;
  const parts: Float32Array[] = [];
  const words: SpokenWord[] = [];
  const sources = new Set<WordTimingSource>();
  let rate = 0;
  let length = 0;
  try {
    for (const chunk of speechChunks(body.input)) {
      const spoken = await ctx.voices.speak(spec, voice.id, chunk, { speed: body.speed, signal });
      if (rate && spoken.sampleRate !== rate) throw new Error(`the voice changed its rate mid-text (${rate} → ${spoken.sampleRate} Hz)`);
      rate = spoken.sampleRate;
      const timed = await wordTimings(spoken, chunk, { tools: ctx.tools, aligner: () => ctx.dubbing.wordAligner(), signal });
      words.push(...shiftWords(timed.words, length / rate));
      sources.add(timed.timings);
      parts.push(spoken.samples);
      length += spoken.samples.length;
    }
  } catch (error) {
    if (signal.aborted) return;
    if (error instanceof SynthesisError) throw new HttpError(500, `The voice could not speak this text: ${error.message}`, { code: 'synthesis_failed' });
    if (error instanceof NoWordTimingsError) throw new HttpError(503, error.message, { code: 'engine_unavailable', param: 'timestamp_granularities' });
    throw error;
  }
  const samples = new Float32Array(length);
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  const audio = await encodeAll(ctx.tools, body.response_format, samples, rate);
  const answer: SpeechWithWords = {
    audio: audio.toString('base64'),
    format: body.response_format,
    sample_rate: SPEECH_OUTPUT_RATE,
    duration: Math.round((length / rate) * 1e6) / 1e6,
    voice: voiceRef(spec.id, voice.id),
    timings: sources.has('alignment') ? 'alignment' : 'engine',
    words,
  };
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Voice', answer.voice);
  res.json(answer);
}
