import path from 'node:path';
import { ConfigError, type ServiceConfig } from '../../config';

/**
 * The ggml Whisper models the model manager offers.
 *
 * Source of every name, size and checksum: whisper.cpp's `models/README.md`, table "Available models"
 * (github.com/ggml-org/whisper.cpp, read at commit 41e789ee591d054769a2fa3ebd9f0a8bc6d6d5fa). The project
 * publishes a SHA-1 per file (column "SHA") and a rounded size (column "Disk"); those are the values
 * below, unchanged. The exact byte count is not published there: a download learns it from the server's
 * Content-Length and the SHA-1 decides whether the file is the published one. The files themselves are on
 * Hugging Face (`ggerganov/whisper.cpp`, `resolve/main/<file>`), the default download base URL.
 * Left out: large-v1 (superseded by v2 and v3) and small.en-tdrz (tinydiarize speaker turns, which this
 * service does not read).
 */
export interface WhisperCatalogueEntry {
  /** whisper.cpp's model name: `base.en`, `large-v3-turbo-q5_0`. */
  name: string;
  file: string;
  /** SHA-1 published by whisper.cpp (lower-case hex). */
  sha1: string;
  /** Size as published ("142 MiB"). */
  disk: string;
  /** `disk` in bytes (rounded as published): for disk-space checks before the server says the exact size. */
  approxBytes: number;
  /** False for `.en` models (English only, slightly better at English for the small sizes). */
  multilingual: boolean;
  /** 5-bit quantized weights: about a third of the size, a little less accurate. */
  quantized: boolean;
  /** Higher is better; PocketSphinx is 10, so any installed Whisper model takes the OpenAI aliases. */
  rank: number;
}

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

function entry(name: string, sha1: string, disk: string, rank: number): WhisperCatalogueEntry {
  const [amount, unit] = disk.split(' ') as [string, 'MiB' | 'GiB'];
  return {
    name,
    file: `ggml-${name}.bin`,
    sha1,
    disk,
    approxBytes: Math.round(Number(amount) * (unit === 'GiB' ? GiB : MiB)),
    multilingual: !name.includes('.en'),
    quantized: name.endsWith('-q5_0'),
    rank,
  };
}

// Rank: larger models are more accurate; at one size an English-only model is preferred (OpenAI reports it
// better on English for tiny and base, about equal from small up), and full weights over quantized ones.
export const WHISPER_CATALOGUE: readonly WhisperCatalogueEntry[] = [
  entry('tiny', 'bd577a113a864445d4c299885e0cb97d4ba92b5f', '75 MiB', 20),
  entry('tiny.en', 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df', '75 MiB', 21),
  entry('base', '465707469ff3a37a2b9b8d8f89f2f99de7299dac', '142 MiB', 30),
  entry('base.en', '137c40403d78fd54d454da0f9bd998f78703390c', '142 MiB', 31),
  entry('small', '55356645c2b361a969dfd0ef2c5a50d530afd8d5', '466 MiB', 40),
  entry('small.en', 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022', '466 MiB', 41),
  entry('medium', 'fd9727b6e1217c2f614f9b698455c4ffd82463b4', '1.5 GiB', 50),
  entry('medium.en', '8c30f0e44ce9560643ebd10bbe50cd20eafd3723', '1.5 GiB', 51),
  entry('large-v2-q5_0', '00e39f2196344e901b3a2bd5814807a769bd1630', '1.1 GiB', 59),
  entry('large-v2', '0f4c8e34f21cf1a914c59d8b3ce882345ad349d6', '2.9 GiB', 60),
  entry('large-v3-turbo-q5_0', 'e050f7970618a659205450ad97eb95a18d69c9ee', '547 MiB', 62),
  entry('large-v3-turbo', '4af2b29d7ec73d781377bfd1758ca957a807e941', '1.5 GiB', 63),
  entry('large-v3-q5_0', 'e6e2ed78495d403bef4b7cff42ef4aaadcfea8de', '1.1 GiB', 64),
  entry('large-v3', 'ad82bf6a9043ceed055076d0fd39f5f186ff8062', '2.9 GiB', 65),
];

export const DEFAULT_WHISPER_BASE_URL = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main';

/** Where downloads come from: TAKELINE_WHISPER_BASE_URL (a mirror, or a local server in tests) or Hugging Face. */
export function whisperBaseUrl(env: NodeJS.ProcessEnv): string {
  const raw = env.TAKELINE_WHISPER_BASE_URL?.trim();
  if (!raw) return DEFAULT_WHISPER_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`TAKELINE_WHISPER_BASE_URL must be an http(s) address, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`TAKELINE_WHISPER_BASE_URL must be an http(s) address, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** Engine id of a model: `whisper-base.en`. */
export function whisperEngineId(name: string): string {
  return `whisper-${name}`;
}

/**
 * Where Whisper models live: `whisper/` in the models folder (TAKELINE_MODELS_DIR), or in
 * `<data folder>/models` when that is not set, so a user can download models without configuring anything.
 */
export function whisperModelsDir(config: Pick<ServiceConfig, 'modelsDir' | 'dataDir'>): string {
  return path.join(config.modelsDir ?? path.join(config.dataDir, 'models'), 'whisper');
}

/**
 * Languages of the multilingual models: the 100 codes of whisper.cpp's language table (`g_lang` in
 * src/whisper.cpp of the copy smart-whisper 0.8.1 bundles; `yue`, Cantonese, is known to large-v3 only).
 */
export const WHISPER_LANGUAGES: readonly string[] = [
  'en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi', 'fi', 'vi',
  'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la', 'mi', 'ml', 'cy', 'sk',
  'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy', 'ne', 'mn', 'bs', 'kk', 'sq', 'sw',
  'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be', 'tg', 'sd', 'gu', 'am', 'yi', 'lo', 'uz', 'fo',
  'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl', 'mg', 'as', 'tt', 'haw', 'ln', 'ha', 'ba', 'jw', 'su', 'yue',
];
