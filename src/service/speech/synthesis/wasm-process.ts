import { fliteSpeak } from './flite';
import { PicoVoice } from './svox-pico';

/**
 * Child-process entry for the engines compiled to WebAssembly (SVOX Pico, flite): their calls are
 * synchronous, a fraction of a second per sentence, which the service's event loop must not wait on.
 * A process of its own, started with --expose-gc (see below), so a crash of the WebAssembly engines can
 * never take the service down. Requests are answered one at a time, in order.
 */
export type WasmSynthesisRequest =
  | { id: number; engine: 'svox-pico'; voice: string; files: [string, string]; text: string; speed: number }
  | { id: number; engine: 'flite'; voice: string; text: string; speed: number };

export type WasmSynthesisReply =
  | { id: number; ok: true; samples: Float32Array; sampleRate: number }
  | { id: number; ok: false; message: string };

const picoVoices = new Map<string, Promise<PicoVoice>>();

async function speak(request: WasmSynthesisRequest): Promise<{ samples: Float32Array; sampleRate: number }> {
  if (request.engine === 'flite') {
    const spoken = await fliteSpeak(request.text, request.voice, request.speed);
    // Node 20's WASI crashes the process (SIGSEGV) when the garbage collector gets to finished WASI
    // instances at its own moment (reproduced: a few dozen runs, in a thread or not); collecting them
    // here, between runs, avoids it (hundreds of runs clean). Costs a few milliseconds a call.
    (globalThis as { gc?: () => void }).gc?.();
    return spoken;
  }
  let voice = picoVoices.get(request.voice);
  if (!voice) {
    voice = PicoVoice.load(request.voice, request.files);
    voice.catch(() => picoVoices.delete(request.voice));
    picoVoices.set(request.voice, voice);
  }
  return { samples: (await voice).speak(request.text, request.speed), sampleRate: 16000 };
}

let queue = Promise.resolve();
process.on('message', (request: WasmSynthesisRequest) => {
  queue = queue.then(async () => {
    let reply: WasmSynthesisReply;
    try {
      const { samples, sampleRate } = await speak(request);
      reply = { id: request.id, ok: true, samples, sampleRate };
    } catch (error) {
      reply = { id: request.id, ok: false, message: (error as Error)?.message ?? String(error) };
    }
    process.send?.(reply);
  });
});
// The service went away (stopped, or killed): so does this process.
process.on('disconnect', () => process.exit(0));
