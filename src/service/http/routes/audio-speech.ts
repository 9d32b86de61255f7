import { once } from 'node:events';
import { Router, type Request, type Response } from 'express';
import { SpeechRequest } from '../../../shared/schemas';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { f32leBytes, SPEECH_CONTENT_TYPES, startSpeechEncoder } from '../../media/encode';
import { speechChunks } from '../../speech/synthesis/text-chunks';
import { OPENAI_VOICE_GENDERS, voiceRef } from '../../speech/synthesis/voice-registry';
import { SynthesisError } from '../../speech/synthesis/voice';
import { parseInput } from '../../validation';

/**
 * `POST /v1/audio/speech`, compatible with OpenAI's SDKs. The text is spoken sentence by sentence and
 * the encoded audio streams out as it is made: the first sentence is synthesized before the status is
 * sent (so a failure there is still a proper error), later failures cut the stream short.
 */
export function audioSpeechRouter(ctx: ServiceContext): Router {
  const router = Router();
  router.post('/speech', async (req: Request, res: Response) => {
    const body = parseInput(SpeechRequest, req.body ?? {}, 'body');
    const found = ctx.voices.findModel(body.model);
    if (!found.ok) {
      throw new HttpError(found.reason === 'not_installed' ? 404 : 400, found.message, { code: 'model_not_found', param: 'model' });
    }
    const spec = found.spec;
    const name = typeof body.voice === 'string' ? body.voice : body.voice.id;
    const voice = ctx.voices.findVoice(spec, name);
    if (!voice) {
      throw new HttpError(400, `The model "${spec.id}" has no voice "${name}". Its voices: ${spec.voices.map((v) => v.id).join(', ')}; OpenAI's names (${Object.keys(OPENAI_VOICE_GENDERS).join(', ')}) map onto them.`, {
        code: 'invalid_value',
        param: 'voice',
      });
    }

    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    const speak = (text: string) => ctx.voices.speak(spec, voice.id, text, { speed: body.speed, signal: controller.signal });
    const chunks = speechChunks(body.input);
    let first;
    try {
      first = await speak(chunks[0]!);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof SynthesisError) throw new HttpError(500, `The voice could not speak this text: ${error.message}`, { code: 'synthesis_failed' });
      throw error;
    }

    const encoder = startSpeechEncoder(ctx.tools, body.response_format, first.sampleRate);
    let stderr = '';
    encoder.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
    encoder.stdin.on('error', () => undefined);
    const exited = once(encoder, 'close') as Promise<[number | null]>;
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
      const [code] = await exited;
      if (code !== 0 && !controller.signal.aborted) throw new Error(`ffmpeg exited with code ${code}: ${stderr.trim()}`);
    } catch (error) {
      encoder.kill('SIGKILL');
      if (!controller.signal.aborted) ctx.log(`speech stream failed: ${(error as Error)?.stack ?? String(error)}`);
      // Headers are out: the only honest signal left is a cut stream.
      res.destroy();
    }
  });
  return router;
}
