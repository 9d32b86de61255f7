import fs from 'node:fs';
import type { ModelFileSpec } from '../../models/model-files';
import type { VoiceEntry } from './voice';

export const SVOX_PICO_ID = 'svox-pico';

/** The lingware files of each Pico voice (`../shared/models/svox-pico/README.md`: sha256 as published). */
export const SVOX_PICO_VOICES: Array<VoiceEntry & { files: [ModelFileSpec, ModelFileSpec] }> = [
  {
    id: 'en-US',
    gender: 'female',
    language: 'en-US',
    sample_rate: 16000,
    description: 'SVOX Pico US English "lh0" (HMM-based, the Android voice)',
    files: [
      { folder: 'svox-pico', file: 'en-US_ta.bin', sha256: '3a2a4d23de2a44dbbff50f69dcb9486be53b6d0a871d77cdc35f45c3e25e82aa' },
      { folder: 'svox-pico', file: 'en-US_lh0_sg.bin', sha256: 'd6946526696d9eb085f7b23b1fbdf7a9986caca658b645e9eb73c6514fd4789d' },
    ],
  },
  {
    id: 'en-GB',
    gender: 'female',
    language: 'en-GB',
    sample_rate: 16000,
    description: 'SVOX Pico British English "kh0"',
    files: [
      { folder: 'svox-pico', file: 'en-GB_ta.bin', sha256: '57998f6423236dea25cd572a73b13f371e64155840e31b571eba7fca0b521b7e' },
      { folder: 'svox-pico', file: 'en-GB_kh0_sg.bin', sha256: '8f9f5d13a920a9f3371517178d42ce89b835f1e587760c2db280beb593c388fa' },
    ],
  },
];

/** Pico's `<speed level>` markup takes 20–500 percent. */
export const SVOX_PICO_SPEED: [number, number] = [0.2, 5];

const PICO_MEMORY = 2_500_000;
const STEP_BUSY = 201;
const STEP_IDLE = 200;
const OUT_BUFFER = 16_384;

/** The parts of the Emscripten module this wrapper calls. */
interface PicoModule {
  HEAPU8: Uint8Array;
  HEAP16: Int16Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  FS: { writeFile(path: string, data: Uint8Array): void; unlink(path: string): void };
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  [name: `_pico_${string}`]: (...args: number[]) => number;
}

let modulePromise: Promise<PicoModule> | null = null;

function loadModule(): Promise<PicoModule> {
  modulePromise ??= import('@echogarden/svoxpico-wasm').then((m) => m.default() as Promise<PicoModule>);
  return modulePromise;
}

/**
 * One SVOX Pico voice, initialised once and reused: a Pico "system" in the WebAssembly heap with the
 * voice's text-analysis and signal-generation resources. Synchronous (about 0.1 s per second of speech),
 * so it runs in the synthesis process, never in the service's.
 */
export class PicoVoice {
  private constructor(
    private readonly m: PicoModule,
    private readonly engine: number,
  ) {}

  static async load(voiceId: string, files: [string, string]): Promise<PicoVoice> {
    const m = await loadModule();
    const alloc = (bytes: number) => m._malloc(bytes);
    const cString = (text: string) => {
      const bytes = Buffer.from(`${text}\0`, 'utf8');
      const ptr = alloc(bytes.length);
      m.HEAPU8.set(bytes, ptr);
      return ptr;
    };
    const check = (code: number, what: string) => {
      if (code !== 0) throw new Error(`SVOX Pico could not ${what} (code ${code})`);
    };
    const memory = alloc(PICO_MEMORY);
    const systemRef = alloc(4);
    check(m._pico_initialize!(memory, PICO_MEMORY, systemRef), 'initialise');
    const system = m.HEAPU32[systemRef >> 2]!;
    const voiceName = cString(`takeline-${voiceId}`);
    check(m._pico_createVoiceDefinition!(system, voiceName), 'define the voice');
    for (const file of files) {
      const virtual = `/${voiceId}-${file.split(/[\\/]/).pop()}`;
      m.FS.writeFile(virtual, fs.readFileSync(file));
      const resourceRef = alloc(4);
      check(m._pico_loadResource!(system, cString(virtual), resourceRef), `load ${virtual}`);
      // The resource is in Pico's memory now; the virtual file is no longer needed.
      m.FS.unlink(virtual);
      const name = alloc(32);
      check(m._pico_getResourceName!(system, m.HEAPU32[resourceRef >> 2]!, name), 'name a resource');
      check(m._pico_addResourceToVoiceDefinition!(system, voiceName, name), 'add a resource');
    }
    const engineRef = alloc(4);
    check(m._pico_newEngine!(system, voiceName, engineRef), 'start the engine');
    return new PicoVoice(m, m.HEAPU32[engineRef >> 2]!);
  }

  /** 16 kHz mono float PCM of `text` at `speed` (1 = Pico's own rate). */
  speak(text: string, speed = 1): Float32Array {
    const m = this.m;
    // Pico reads `<…>` as markup; the text itself never carries any.
    const clean = text.replace(/[<>]/g, ' ');
    const level = Math.round(Math.min(SVOX_PICO_SPEED[1], Math.max(SVOX_PICO_SPEED[0], speed)) * 100);
    // Volume 50 keeps Pico's loudest vowels from clipping (it clips at its default of 100).
    const marked = Buffer.from(`<volume level="50"><speed level="${level}">${clean}</speed></volume>\0`, 'utf8');
    const text0 = m._malloc(marked.length);
    const written = m._malloc(4);
    const out = m._malloc(OUT_BUFFER);
    const count = m._malloc(2);
    const type = m._malloc(2);
    const parts: Int16Array[] = [];
    let total = 0;
    try {
      m.HEAPU8.set(marked, text0);
      for (let offset = 0; offset < marked.length; ) {
        m.HEAP32[written >> 2] = 0;
        const put = m._pico_putTextUtf8!(this.engine, text0 + offset, marked.length - offset, written);
        if (put !== 0) throw new Error(`SVOX Pico refused the text (code ${put})`);
        offset += m.HEAP32[written >> 2]!;
        for (;;) {
          const status = m._pico_getData!(this.engine, out, OUT_BUFFER, count, type);
          const bytes = m.HEAP16[count >> 1]!;
          if (bytes > 0) {
            const chunk = new Int16Array(m.HEAPU8.slice(out, out + bytes).buffer);
            parts.push(chunk);
            total += chunk.length;
          }
          if (status === STEP_IDLE) break;
          if (status !== STEP_BUSY) throw new Error(`SVOX Pico failed while speaking (code ${status})`);
        }
      }
    } finally {
      for (const ptr of [text0, written, out, count, type]) m._free(ptr);
    }
    const samples = new Float32Array(total);
    let at = 0;
    for (const part of parts) {
      for (let i = 0; i < part.length; i++) samples[at + i] = part[i]! / 32768;
      at += part.length;
    }
    return samples;
  }
}
