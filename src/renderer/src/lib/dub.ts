/** Pure helpers of the dub view: voice choices, A/B playback of a line, flag labels. */
import type { Dub, DubLine, DubRevision, LineRender, SpeechModel } from '../api/types';

export interface VoiceChoice {
  /** `<model>/<voice>`, as dubs name voices. */
  ref: string;
  label: string;
  /** The voice and its engine only ("slt · festival-hts"), for the lines' narrow voice column. */
  short: string;
}

/** Every voice of the installed `tts` models, most natural engine first (the service's order). */
export function voiceChoices(models: SpeechModel[]): VoiceChoice[] {
  return models
    .filter((m) => m.kind === 'tts')
    .flatMap((m) =>
      (m.voices ?? []).map((v) => ({
        ref: `${m.id}/${v.id}`,
        label: `${m.id} · ${v.id} (${v.gender}, ${v.language})`,
        short: `${v.id} · ${m.id}`,
      })),
    );
}

/**
 * The two revisions A/B compares for a line: B is the current one; A is what the line sounded like
 * before its current voicing (the revision that voicing was built on), or the current revision's base
 * for a line the current revision did not voice.
 */
export function abRevisions(line: DubLine, revisions: DubRevision[], current: number): { before: number; after: number } {
  const byNumber = new Map(revisions.map((r) => [r.number, r]));
  const voicedIn = line.render ? byNumber.get(line.render.revision) : undefined;
  const before = voicedIn?.base ?? byNumber.get(current)?.base ?? current;
  return { before, after: current };
}

/** What A/B plays of a line: its slot (with borrowed silence) and a little either side. */
export function abWindow(line: DubLine, pad = 0.3): { start: number; end: number } {
  const start = Math.min(line.start, line.render?.region.start ?? line.start);
  const end = Math.max(line.end, line.render?.region.end ?? line.end);
  return { start: Math.max(0, start - pad), end: end + pad };
}

const FLAG_LABELS: Record<string, string> = {
  does_not_fit: 'does not fit',
  borrowed_silence: 'borrowed silence',
  stretched: 'stretched',
  gain_limited: 'gain limited',
  no_reference_loudness: 'no reference loudness',
  no_word_timings: 'no word timings',
};

export function flagLabel(flag: string): string {
  return FLAG_LABELS[flag] ?? flag.replace(/_/g, ' ');
}

/** The flag a supervisor must act on (shorten the text), shown as a warning; the rest are information. */
export function isWarningFlag(flag: string): boolean {
  return flag === 'does_not_fit';
}

/**
 * How much of a line's new speech a revoice cut at the slot's end, 0…1: the seconds cut over the seconds
 * the voice needed (what sounds plus what was cut). 0 for a line that fit.
 */
export function cutShare(render: Pick<LineRender, 'overflow' | 'speech'>): number {
  const sounded = Math.max(0, render.speech.end - render.speech.start);
  const cut = Math.max(0, render.overflow);
  return cut + sounded > 0 ? cut / (cut + sounded) : 0;
}

/** "72 % cut (1.3 s)": how much of a line a revoice cut. */
export function cutLabel(render: Pick<LineRender, 'overflow' | 'speech'>): string {
  return `${Math.round(cutShare(render) * 100)} % cut (${render.overflow.toFixed(1)} s)`;
}

/** "does not fit: 72 % cut (1.3 s)", the label of a line a revoice cut. */
export function unfitLabel(render: Pick<LineRender, 'overflow' | 'speech'>): string {
  return `${flagLabel('does_not_fit')}: ${cutLabel(render)}`;
}

/** What a dub that is still preparing is doing now, from its `stage` (the job's), in words. */
export function preparingLabel(dub: Pick<Dub, 'source' | 'stage'>): string {
  if (dub.source === 'recording') {
    if (dub.stage === 'converting audio') return "Converting the recording's audio";
    if (dub.stage === 'drawing the waveform') return 'Drawing the waveform';
    return 'Starting to prepare the dub from the recording';
  }
  if (dub.stage === 'queued' || !dub.stage) return 'Waiting to transcribe the dub';
  return `Deriving lines (transcribing the dub: ${dub.stage})`;
}
