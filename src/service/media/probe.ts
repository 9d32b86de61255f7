import { execFile } from 'node:child_process';
import type { MediaTools } from './tools';

export interface ProbeResult {
  container: string;
  duration: number;
  hasAudio: boolean;
  hasVideo: boolean;
  codec: string | null;
  sampleRate: number | null;
  channels: number | null;
}

export class NotMediaError extends Error {}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  sample_rate?: string;
  channels?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
}

// Still images are "video" to ffprobe; they are not recordings.
const IMAGE_FORMATS = /(^|,)(image2|[a-z0-9]+_pipe|gif|apng|webp|tiff|bmp|ico|svg)($|,)/;

/** Reads what the file is with ffprobe. Throws NotMediaError with a message a user understands. */
export function probeMedia(tools: MediaTools, file: string, signal?: AbortSignal): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(
      tools.ffprobe,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', file],
      { maxBuffer: 8 * 1024 * 1024, timeout: 60_000, signal },
      (error, stdout) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          return reject(new Error(`ffprobe could not be started ("${tools.ffprobe}")`));
        }
        if (error && signal?.aborted) return reject(error);
        let parsed: { format?: { format_name?: string; duration?: string }; streams?: FfprobeStream[] };
        try {
          parsed = JSON.parse(stdout || '{}');
        } catch {
          parsed = {};
        }
        const streams = parsed.streams ?? [];
        const formatName = parsed.format?.format_name ?? '';
        const audio = streams.find((s) => s.codec_type === 'audio');
        const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
        if (error || !parsed.format || (!audio && !video) || (!audio && IMAGE_FORMATS.test(formatName))) {
          return reject(new NotMediaError('The file is not audio or video that can be decoded.'));
        }
        const durations = [parsed.format.duration, audio?.duration, video?.duration].map(Number).filter((d) => Number.isFinite(d) && d > 0);
        const duration = durations[0] ?? 0;
        if (!(duration > 0)) return reject(new NotMediaError('The file has no playable duration; it may be truncated or empty.'));
        resolve({
          container: formatName,
          duration,
          hasAudio: !!audio,
          hasVideo: !!video,
          codec: audio?.codec_name ?? null,
          sampleRate: audio?.sample_rate ? Number(audio.sample_rate) : null,
          channels: audio?.channels ?? null,
        });
      },
    );
  });
}

/** Content-Type for playback of the original file, from ffprobe's container name. */
export function contentTypeFor({ container, hasAudio, hasVideo }: Pick<ProbeResult, 'container' | 'hasAudio' | 'hasVideo'>): string {
  const first = container.split(',');
  const has = (name: string) => first.includes(name);
  if (has('wav')) return 'audio/wav';
  if (has('flac')) return 'audio/flac';
  if (has('mp3')) return 'audio/mpeg';
  if (has('ogg')) return 'audio/ogg';
  if (has('matroska') || has('webm')) return hasVideo ? 'video/webm' : 'audio/webm';
  if (has('mov') || has('mp4') || has('m4a')) return hasVideo || !hasAudio ? 'video/mp4' : 'audio/mp4';
  if (has('aac')) return 'audio/aac';
  if (has('aiff')) return 'audio/aiff';
  return 'application/octet-stream';
}
