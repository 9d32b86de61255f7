import type { DubLineInput, LineRender, ValidationIssue } from '../../shared/schemas';
import { issue } from '../errors';
import type { NewLine } from '../storage/dub-store';
import type { TranscriptSegment } from '../speech/types';

/** Line ends may pass the dub's end by this much (rounding in the caller's timings); they are clamped. */
export const END_TOLERANCE = 0.05;

export interface TimedLine {
  id: number;
  start: number;
  end: number;
}


/**
 * Checks uploaded lines against the dub and each other: each starts before it ends and ends within the
 * dub; in time order, none starts before the previous one ends. Returns them in time order, numbered from
 * 1, with ends clamped to the dub; or the problems, located by their index in the upload.
 */
export function checkUploadedLines(
  lines: DubLineInput[],
  duration: number,
): { ok: true; lines: Array<DubLineInput & { id: number }> } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  lines.forEach((line, i) => {
    if (!(line.start < line.end)) issues.push(issue(['lines', i, 'end'], 'A line must end after it starts', 'line_order', line.end, { start: line.start }));
    if (line.end > duration + END_TOLERANCE) {
      issues.push(issue(['lines', i, 'end'], `The line ends after the dub (${duration.toFixed(3)} s)`, 'line_outside_dub', line.end, { duration }));
    }
  });
  if (issues.length) return { ok: false, issues };
  const order = lines.map((_, i) => i).sort((a, b) => lines[a]!.start - lines[b]!.start || a - b);
  for (let k = 1; k < order.length; k++) {
    const previous = lines[order[k - 1]!]!;
    const line = lines[order[k]!]!;
    if (line.start < previous.end) {
      issues.push(
        issue(['lines', order[k]!, 'start'], `The line overlaps line ${order[k - 1]} (which ends at ${previous.end})`, 'line_overlap', line.start, {
          overlaps: order[k - 1],
        }),
      );
    }
  }
  if (issues.length) return { ok: false, issues };
  return { ok: true, lines: order.map((i, k) => ({ ...lines[i]!, end: Math.min(lines[i]!.end, duration), id: k + 1 })) };
}

/**
 * Checks a line's new timing against its neighbours (it may not cross them) and the dub. `lines` are the
 * dub's lines in time order; the result is the timing to store, or the problems (loc under `body`).
 */
export function checkRetiming(
  lines: TimedLine[],
  id: number,
  start: number,
  end: number,
  duration: number,
): { ok: true; start: number; end: number } | { ok: false; issues: ValidationIssue[] } {
  const index = lines.findIndex((l) => l.id === id);
  const previous = lines[index - 1];
  const next = lines[index + 1];
  const issues: ValidationIssue[] = [];
  if (!(start < end)) issues.push(issue(['end'], 'A line must end after it starts', 'line_order', end, { start }));
  if (previous && start < previous.end) {
    issues.push(issue(['start'], `The line would overlap line ${previous.id}, which ends at ${previous.end}`, 'line_overlap', start, { previous_end: previous.end }));
  }
  if (next && end > next.start) {
    issues.push(issue(['end'], `The line would overlap line ${next.id}, which starts at ${next.start}`, 'line_overlap', end, { next_start: next.start }));
  }
  if (end > duration + END_TOLERANCE) issues.push(issue(['end'], `The line would end after the dub (${duration.toFixed(3)} s)`, 'line_outside_dub', end, { duration }));
  return issues.length ? { ok: false, issues } : { ok: true, start, end: Math.min(end, duration) };
}

export type LineState = 'original' | 'corrected' | 'voiced';

/**
 * Where a line stands against the current revision. It is `voiced` when the revision carries it voiced
 * at exactly its current text, voice, timing and speed; `corrected` when its text differs from the
 * original, its own voice differs from the one it was made with, a speed is set, or it was voiced before,
 * and the revision does not carry that (a revoice will voice it); `original` otherwise (the original
 * performance, untouched). A voice set for the line's speaker alone does not count: it says which voice
 * the speaker's changed lines get, not that every one of them is to be voiced.
 */
export function lineState(
  line: { text: string; originalText: string; start: number; end: number; speed?: number | null; voice?: string | null; originalVoice?: string | null },
  effectiveVoice: string | null,
  render: LineRender | undefined,
  covered = false,
  effectiveGuide: string | null = null,
): { state: LineState; needsRevoice: boolean } {
  const current =
    render !== undefined &&
    render.text === line.text &&
    render.voice === effectiveVoice &&
    render.line_start === line.start &&
    render.line_end === line.end &&
    (render.speed ?? null) === (line.speed ?? null) &&
    // A chosen take is what the supervisor picked, whatever the guide; a revoiced line follows the guide it has now.
    (Boolean(render.take_id) || (render.guide ?? null) === effectiveGuide);
  if (current && !covered) return { state: 'voiced', needsRevoice: false };
  const changed = line.text !== line.originalText || (line.voice ?? null) !== (line.originalVoice ?? null) || (line.speed ?? null) !== null;
  if (render !== undefined || covered || changed) return { state: 'corrected', needsRevoice: true };
  return { state: 'original', needsRevoice: false };
}

/**
 * Whether the revision's audio under `line` was last written by another line's rendering: after a voiced
 * line is split, its other part sounds in the first part's voice; after a merge is undone, the restored
 * line lies under the merged line's newer rendering. Such a line needs a revoice even if its text is the
 * original. Another rendering counts when its slot overlaps the line and it is newer than the line's own.
 */
export function coveredByOther(line: { id: number; start: number; end: number }, renders: Record<number, LineRender>): boolean {
  const own = renders[line.id]?.revision ?? 0;
  return Object.entries(renders).some(
    ([id, r]) => Number(id) !== line.id && r.revision > own && r.slot.start < line.end && r.slot.end > line.start,
  );
}

/**
 * A transcript's segments as a dub's lines (a dub from the recording, or a dub transcribed into lines): in time
 * order, within the audio, never overlapping (the pipeline's segments do not, but the rule holds whatever it
 * returns), text cut to the line limit, empty ones left out.
 */
export function linesFromSegments(segments: readonly TranscriptSegment[], duration: number, maxText: number): NewLine[] {
  const lines: NewLine[] = [];
  let previousEnd = 0;
  for (const segment of [...segments].sort((a, b) => a.start - b.start)) {
    const text = segment.text.trim().slice(0, maxText);
    const start = Math.max(segment.start, previousEnd);
    const end = Math.min(segment.end, duration);
    if (!text || end <= start) continue;
    lines.push({
      id: lines.length + 1,
      speaker: segment.speaker,
      start,
      end,
      text,
      voice: null,
      words: (segment.words ?? []).map((w) => ({ word: w.word.trim(), start: w.start, end: w.end })),
    });
    previousEnd = end;
  }
  return lines;
}
