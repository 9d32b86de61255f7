/** The studio's calls to the Whisper model manager (`/v1/speech/models/whisper`). */
import type { WhisperModel, WhisperModelList } from '../../../shared/schemas/whisper-models';

export type { WhisperModel, WhisperModelList };

export interface WhisperModelsApi {
  listWhisperModels(signal?: AbortSignal): Promise<WhisperModelList>;
  downloadWhisperModel(name: string): Promise<WhisperModel>;
  cancelWhisperDownload(name: string, discard: boolean): Promise<WhisperModel>;
  verifyWhisperModel(name: string): Promise<WhisperModel>;
  removeWhisperModel(name: string): Promise<void>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

export function whisperModelsApi(json: Json): WhisperModelsApi {
  const at = (name: string) => `/v1/speech/models/whisper/${encodeURIComponent(name)}`;
  return {
    listWhisperModels: (signal) => json<WhisperModelList>('/v1/speech/models/whisper', { signal }),
    downloadWhisperModel: (name) => json<WhisperModel>(`${at(name)}/download`, { method: 'POST' }),
    cancelWhisperDownload: (name, discard) => json<WhisperModel>(`${at(name)}/download?discard=${discard}`, { method: 'DELETE' }),
    verifyWhisperModel: (name) => json<WhisperModel>(`${at(name)}/verify`, { method: 'POST' }),
    removeWhisperModel: async (name) => {
      await json<null>(at(name), { method: 'DELETE' });
    },
  };
}
