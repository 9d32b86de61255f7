import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { audioDir } from './paths';
import { readAsrSet } from '../../bench/lib/asr-set';

/** Clips of ../shared/audio/asr joined end to end into `dir/name` (16 kHz mono FLAC). */
export function joinClips(dir: string, name: string, clips: string[]): string {
  const file = path.join(dir, name);
  const inputs = clips.flatMap((c) => ['-i', path.join(audioDir, 'asr', `${c}.flac`)]);
  const filter = clips.map((_, i) => `[${i}:a]`).join('') + `concat=n=${clips.length}:v=0:a=1`;
  const r = spawnSync('ffmpeg', ['-v', 'error', ...inputs, '-filter_complex', filter, '-ar', '16000', '-ac', '1', file]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  return file;
}

const TWO_READERS = ['ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0035'];

/** About 30 s of read speech, two readers taking turns (LJSpeech and the amateur desk-mic readings). */
export function twoReadersFile(dir: string): string {
  return joinClips(dir, 'two-readers.flac', TWO_READERS);
}

/** What the two readers read: each clip's reference text (refs.tsv), one line per clip. */
export function twoReadersScript(): string {
  return clipsScript(TWO_READERS);
}

/** What is read in these clips of ../shared/audio/asr, in order: each clip's reference text (refs.tsv), one line per clip. */
export function clipsScript(clips: readonly string[]): string {
  const references = new Map(readAsrSet(path.join(audioDir, 'asr')).map((f) => [f.file.replace(/\.flac$/, ''), f.reference]));
  return clips.map((clip) => references.get(clip)!).join('\n');
}
