import type { WhisperParams } from './params';
import type { WhisperSegment } from './result';

/** Messages between the service and its Whisper host process (Node's advanced IPC serialization). */
export type HostRequest = { type: 'transcribe'; id: number; pcm: Float32Array; params: WhisperParams };

export type HostReply =
  | { type: 'ready'; loadSeconds: number }
  | { type: 'result'; id: number; segments: WhisperSegment[] }
  | { type: 'failed'; id: number | null; message: string };

/** argv[2] of the host: the model file it loads at start. */
export const HOST_MODEL_ARG = 2;
