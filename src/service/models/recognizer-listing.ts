import type { EngineDescriptor } from './registry';

export const TRANSCRIPTION_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt', 'diarized_json'];

/** The listing of an on-device recognizer (every format, streaming deltas, diarized). */
export function localRecognizerModel(id: string, aliases: string[] = []): EngineDescriptor['model'] {
  return {
    id,
    kind: 'stt',
    tier: 'free',
    supports_streaming: true,
    supports_cloning: false,
    supports_diarization: true,
    formats: TRANSCRIPTION_FORMATS,
    default_voice: '',
    aliases,
  };
}
