/** Recordings the studio's end-to-end tests build from ../shared/audio with ffmpeg, with their truth beside them. */
import { spawnSync } from 'node:child_process';

/** Any input as 16 kHz mono float, ready to mix and concatenate. */
export const MONO = 'aresample=16000,aformat=sample_fmts=fltp:channel_layouts=mono';

/** `seconds` of digital silence as the filter output `[label]`. */
export function silence(label: string, seconds: number): string {
  return `anullsrc=r=16000:cl=mono,atrim=0:${seconds},aformat=sample_fmts=fltp:channel_layouts=mono[${label}]`;
}

/**
 * Runs a filter graph over `inputs` (its steps joined; it must end in `[speech]`), lays a faint room-noise
 * floor (about −70 dBFS mean) under it, as a real recording has, and writes 16 kHz mono 16-bit `file`.
 */
export function renderRecording(file: string, inputs: readonly string[], graph: readonly string[]): string {
  const filter = [
    ...graph,
    'anoisesrc=r=16000:color=pink:amplitude=0.002,aformat=sample_fmts=fltp:channel_layouts=mono[floor]',
    '[speech][floor]amix=inputs=2:duration=first:normalize=0,aformat=sample_fmts=s16[out]',
  ].join(';');
  const r = spawnSync('ffmpeg', [
    ...['-v', 'error', '-y'],
    ...inputs.flatMap((f) => ['-i', f]),
    ...['-filter_complex', filter, '-map', '[out]', '-ar', '16000', '-ac', '1', file],
  ]);
  if (r.status !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
  return file;
}
