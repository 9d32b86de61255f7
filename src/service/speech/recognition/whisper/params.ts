/**
 * OpenAI's transcription parameters mapped onto whisper.cpp's `whisper_full_params` (as smart-whisper takes
 * them). Pure, so the mapping is tested without a model.
 */

/** The subset of whisper_full_params this service sets (names as whisper.cpp spells them). */
export interface WhisperParams {
  strategy: 0 | 1;
  beam_size: number;
  best_of: number;
  n_threads: number;
  language: string;
  initial_prompt?: string;
  temperature: number;
  temperature_inc: number;
  token_timestamps: true;
  no_context: true;
  suppress_non_speech_tokens: true;
  print_progress: false;
  print_realtime: false;
  print_timestamps: false;
  print_special: false;
  format: 'detail';
}

export interface WhisperRequest {
  /** ISO 639-1 code; omitted → English for `.en` models, automatic detection for multilingual ones. */
  language?: string;
  prompt?: string;
  /** 0–1, OpenAI's meaning (see below). */
  temperature?: number;
  threads: number;
  /** False for the `.en` models, which transcribe English only. */
  multilingual: boolean;
}

const GREEDY = 0;
const BEAM_SEARCH = 1;

export class WhisperLanguageError extends Error {}

/**
 * - `temperature` 0 (OpenAI's default) means "decode deterministically, and raise the temperature only when
 *   the result fails the log-probability or compression checks": beam search (5 beams, whisper.cpp's and
 *   openai-whisper's default) with whisper.cpp's fallback steps of 0.2. A temperature above 0 samples at
 *   that temperature (best of 5 candidates) and never falls back, as OpenAI documents.
 * - `prompt` becomes whisper's initial prompt (previous-text context: names and spellings it should use).
 * - `language` is passed through; a `.en` model refuses any other language instead of mistranscribing it.
 * - Each call is independent (`no_context`): chunks are recognized out of order, so carrying text over
 *   from the last call would condition on the wrong neighbour.
 */
export function whisperParams(request: WhisperRequest): WhisperParams {
  const temperature = Math.min(1, Math.max(0, request.temperature ?? 0));
  const language = request.language?.trim().toLowerCase() || (request.multilingual ? 'auto' : 'en');
  if (!request.multilingual && language !== 'en') {
    throw new WhisperLanguageError(`This Whisper model transcribes English only (asked for "${language}"); install a multilingual model.`);
  }
  const prompt = request.prompt?.trim();
  return {
    strategy: temperature === 0 ? BEAM_SEARCH : GREEDY,
    beam_size: 5,
    best_of: 5,
    n_threads: Math.max(1, Math.floor(request.threads)),
    language,
    ...(prompt ? { initial_prompt: prompt } : {}),
    temperature,
    temperature_inc: temperature === 0 ? 0.2 : 0,
    token_timestamps: true,
    no_context: true,
    suppress_non_speech_tokens: true,
    print_progress: false,
    print_realtime: false,
    print_timestamps: false,
    print_special: false,
    format: 'detail',
  };
}
