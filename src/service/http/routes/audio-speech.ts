import { once } from 'node:events';
import { Router, type Request, type Response } from 'express';
import { SpeechRequest } from '../../../shared/schemas';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { f32leBytes, SPEECH_CONTENT_TYPES, startSpeechEncoder } from '../../media/encode';
import { speechChunks } from '../../speech/synthesis/text-chunks';
import { voiceRef } from '../../speech/synthesis/voice-registry';
import { SynthesisError } from '../../speech/synthesis/voice';
import { parseInput } from '../../validation';
import { sendSpeechWithWords } from './speech-with-words';

/**
 * `POST /v1/audio/speech`, compatible with OpenAI's SDKs. The text is spoken sentence by sentence and
 * the encoded audio streams out as it is made: the first sentence is synthesized before the status is
 * sent (so a failure there is still a proper error), later failures cut the stream short.
 */
export function audioSpeechRouter(ctx: ServiceContext): Router {
  const router = Router();
  router.post('/speech', async (req: Request, res: Response) => {
    const body = parseInput(SpeechRequest, req.body ?? {}, 'body');
    const name = typeof body.voice === 'string' ? body.voice : body.voice.id;
    const found = ctx.voices.speechVoice(body.model, name);
    if (!found.ok) {
      if (found.reason === 'unknown_voice' || found.reason === 'no_voice_of_gender') throw new HttpError(400, found.message, { code: 'invalid_value', param: 'voice' });
      throw new HttpError(found.reason === 'not_installed' ? 404 : 400, found.message, { code: 'model_not_found', param: 'model' });
    }
    const { spec, voice } = found;
    // Words' times asked for: JSON with the whole audio instead of the stream.
    if (body.timestamp_granularities) return sendSpeechWithWords(ctx, res, body, spec, voice);

    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    const speak = (text: string) => ctx.voices.speak(spec, voice.id, text, { speed: body.speed, signal: controller.signal });
    const chunks = speechChunks(body.input);
    // The encoder starts while the first sentence is spoken, at the rate the voice speaks at, so ffmpeg's own
    // start-up is off the first byte's path (started again in the unlikely case the audio comes at another rate).
    const startEncoder = (rate: number) => {
      const child = startSpeechEncoder(ctx.tools, body.response_format, rate);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
      child.stdin.on('error', () => undefined);
      const exited = new Promise<number | null>((resolve) => {
        child.on('close', (code) => resolve(code));
        child.on('error', () => resolve(null));
      });
      return { child, exited, stderr: () => stderr };
    };
    let encoding = startEncoder(voice.sample_rate);
    let first;
    try {
      first = await speak(chunks[0]!);
    } catch (error) {
      encoding.child.kill('SIGKILL');
      if (controller.signal.aborted) return;
      if (error instanceof SynthesisError) throw new HttpError(500, `The voice could not speak this text: ${error.message}`, { code: 'synthesis_failed' });
      throw error;
    }
    if (first.sampleRate !== voice.sample_rate) {
      encoding.child.kill('SIGKILL');
      encoding = startEncoder(first.sampleRate);
    }
    const encoder = encoding.child;
    controller.signal.addEventListener('abort', () => encoder.kill('SIGKILL'), { once: true });
    res.status(200);
    res.setHeader('Content-Type', SPEECH_CONTENT_TYPES[body.response_format]);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Voice', voiceRef(spec.id, voice.id));
    encoder.stdout.pipe(res);
    try {
      const write = async (samples: Float32Array) => {
        if (!encoder.stdin.write(f32leBytes(samples))) await once(encoder.stdin, 'drain', { signal: controller.signal });
      };
      await write(first.samples);
      for (const chunk of chunks.slice(1)) await write((await speak(chunk)).samples);
      encoder.stdin.end();
      const code = await encoding.exited;
      if (code !== 0 && !controller.signal.aborted) throw new Error(`ffmpeg exited with code ${code}: ${encoding.stderr().trim()}`);
    } catch (error) {
      encoder.kill('SIGKILL');
      if (!controller.signal.aborted) ctx.log(`speech stream failed: ${(error as Error)?.stack ?? String(error)}`);
      // Headers are out: the only honest signal left is a cut stream.
      res.destroy();
    }
  });
  return router;
}
