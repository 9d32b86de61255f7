/**
 * The Whisper host: a Node child process that loads one ggml model with smart-whisper (whisper.cpp) and
 * transcribes the PCM chunks the service sends, one at a time. It runs apart from the service because
 * whisper.cpp cannot be interrupted once a call has started (the service kills this process to cancel), a
 * damaged model file can crash it, and whisper.cpp prints its diagnostics to stderr (the service keeps the
 * last lines for error messages instead of its own log).
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { HOST_MODEL_ARG, type HostReply, type HostRequest } from './protocol';
import type { WhisperSegment } from './result';

interface SmartWhisperModel {
  readonly handle: unknown;
}
interface SmartWhisper {
  WhisperModel: { load(file: string, gpu: boolean): Promise<SmartWhisperModel> };
  TranscribeTask: {
    run(model: SmartWhisperModel, pcm: Float32Array, params: object): Promise<{ result: Promise<unknown> }>;
  };
}

const send = (reply: HostReply) => process.send!(reply);

async function main(): Promise<void> {
  const file = process.argv[HOST_MODEL_ARG];
  if (!file) throw new Error('no model file given');
  const started = performance.now();
  const addon = createRequire(import.meta.url)('smart-whisper') as SmartWhisper;
  const model = await addon.WhisperModel.load(file, false);
  send({ type: 'ready', loadSeconds: (performance.now() - started) / 1000 });

  // One call at a time: whisper.cpp already spreads a call over n_threads.
  let queue = Promise.resolve();
  process.on('message', (request: HostRequest) => {
    if (request.type !== 'transcribe') return;
    queue = queue.then(async () => {
      try {
        const task = await addon.TranscribeTask.run(model, request.pcm, request.params);
        const result = await task.result;
        // On failure smart-whisper resolves with the Error instead of rejecting.
        if (result instanceof Error) throw result;
        send({ type: 'result', id: request.id, segments: result as WhisperSegment[] });
      } catch (error) {
        send({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  send({ type: 'failed', id: null, message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
  process.disconnect?.();
});
