import type { ProjectTranscriptReplaceResult, ReplaceResult } from '../api/transcript-edits';

/** One line of the find-and-replace preview: where, and the words before and after. */
export interface ReplaceMatchRow {
  where: string;
  before: string;
  after: string;
}

/** Lines are numbered from 1 as the transcript shows them (segment ids count from 0). */
export function recordingRows(matches: ReplaceResult['matches'], prefix = ''): ReplaceMatchRow[] {
  return matches.map((m) => ({ where: `${prefix}line ${m.segment_id + 1}`, before: m.before, after: m.after }));
}

export function projectRows(result: ProjectTranscriptReplaceResult): ReplaceMatchRow[] {
  return result.recordings.flatMap((r) => recordingRows(r.matches, `${r.file_name}, `));
}
