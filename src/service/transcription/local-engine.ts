import type { MediaTools } from '../media/tools';
import { JobFailure } from '../jobs/job-runner';
import type { TranscriptionEngine } from './engine';

export function createLocalTranscription(_deps: { tools: MediaTools; env: NodeJS.ProcessEnv }): TranscriptionEngine {
  return {
    async transcribe() {
      throw new JobFailure('Transcription pipeline is not wired yet.');
    },
    async applyKnownSpeakers(transcript) {
      return transcript;
    },
    async close() {},
  };
}
