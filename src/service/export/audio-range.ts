/**
 * The recording's audio, or a part of it (the editor's in→out), as a file an editor drops on a timeline:
 * 16-bit PCM WAV at the recording's own sample rate and channels. ffmpeg seeks on the input and decodes from
 * there, so the cut is on the sample whatever the source's packet size.
 */
import { BITEXACT_ARGS } from '../media/encode';
import { runProgram } from '../media/run-program';
import type { MediaTools } from '../media/tools';
import { UnsupportedMediaError } from '../errors';
import type { ExportRange } from './range';

export async function writeAudioExport(tools: MediaTools, source: string, target: string, range: ExportRange | null): Promise<void> {
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'];
  if (range) args.push('-ss', range.start.toFixed(6));
  args.push('-i', source);
  if (range) args.push('-t', (range.end - range.start).toFixed(6));
  args.push('-vn', '-map', '0:a:0', ...BITEXACT_ARGS, '-c:a', 'pcm_s16le', '-f', 'wav', target);
  try {
    await runProgram(tools.ffmpeg, args, { timeoutMs: 600_000 });
  } catch (error) {
    // A recording whose file has no audio stream (a silent video) has no audio to export.
    if (/matches no streams|does not contain any stream/i.test((error as Error).message))
      throw new UnsupportedMediaError('The recording has no audio stream to export.', { code: 'no_audio_stream' });
    throw error;
  }
}
