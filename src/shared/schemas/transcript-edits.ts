import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { Session, SessionTranscript } from './sessions';

const SpeakerLabel = z.string().regex(/^S\d{1,4}$/, 'should be a speaker label of the recording, such as S2');
const BaseRevision = z
  .number()
  .int()
  .min(0)
  .optional()
  .meta({ description: 'The revision the edit was made on; 409 when the transcript has changed since (another tab, another client)' });

export const SpeakerReassign = z
  .strictObject({
    segment_id: z.number().int().min(0).meta({ description: 'The line' }),
    word_start: z.number().int().min(0).optional().meta({ description: 'First word of a range (0-based); with word_end, only the range moves, cut out as its own line' }),
    word_end: z.number().int().min(0).optional().meta({ description: 'Last word of the range (inclusive)' }),
    speaker: z
      .string()
      .regex(/^(S\d{1,4}|new)$/, 'should be a speaker label of the recording (S2) or "new"')
      .optional()
      .meta({ description: 'A speaker of the recording, or "new" for a voice diarization missed' }),
    speaker_id: Uuid.optional().meta({ description: 'Or a project speaker (a known voice), by id' }),
    base_revision: BaseRevision,
  })
  .meta({ id: 'SpeakerReassign' });

export const SpeakerMerge = z
  .strictObject({
    from: SpeakerLabel.meta({ description: 'The speaker that disappears' }),
    into: SpeakerLabel.meta({ description: 'The speaker who gets its lines' }),
    base_revision: BaseRevision,
  })
  .meta({ id: 'SpeakerMerge' });

export const SegmentSplit = z
  .strictObject({
    segment_id: z.number().int().min(0),
    word_index: z.number().int().min(1).meta({ description: 'The first word of the second line (0-based)' }),
    base_revision: BaseRevision,
  })
  .meta({ id: 'SegmentSplit' });

export const RevisionRestore = z.strictObject({ base_revision: BaseRevision }).meta({ id: 'RevisionRestore' });

export const TranscriptRevision = z
  .object({
    revision: z.number().int().meta({ description: '0 is the recognizer transcript' }),
    created_at: Timestamp.meta({ description: 'Empty for revision 0 of a transcript never edited' }),
    edit: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'What was done: op (reassign, merge, split, restore, edit_text, replace, align_script) and its fields; `touched` lists the labels whose speech changed. Word corrections list per line (`lines`) which new words were timed by forced alignment (`aligned`), which by sharing their gap by syllables (`interpolated`: alignment failed or the word could not be decoded), and unchanged words retimed to make room (`retimed_unchanged`). `vocabulary_added` (word corrections, replace, align_script) lists typed words the recognizer\'s dictionary lacked that were added to the project\'s vocabulary (docs/transcription.md, "Corrections teach the recognizer")' }),
    speakers: z.array(z.string()),
    segments: z.number().int(),
    author: z
      .string()
      .nullable()
      .meta({ description: 'Who made the revision: the user\'s display name (else their name), the key\'s name, or "the desktop"; null for the recognizer\'s revision 0 and revisions made before authors were kept' }),
  })
  .meta({ id: 'TranscriptRevision' });

export const TranscriptRevisionList = z
  .object({ current: z.number().int(), data: z.array(TranscriptRevision) })
  .meta({ id: 'TranscriptRevisionList' });

export const TranscriptRevisionDetail = TranscriptRevision.extend({ transcript: SessionTranscript }).meta({ id: 'TranscriptRevisionDetail' });

export const TranscriptEditResult = z
  .object({ revision: TranscriptRevision, session: Session })
  .meta({ id: 'TranscriptEditResult' });

export type TranscriptRevision = z.infer<typeof TranscriptRevision>;
export type TranscriptRevisionList = z.infer<typeof TranscriptRevisionList>;
export type TranscriptEditResult = z.infer<typeof TranscriptEditResult>;

// ---- Word corrections: a line's text, find and replace in a recording and across a project.

/** The longest text a correction takes (a line's words, a find or a replacement); longer is a script, not a correction. */
export const MAX_CORRECTION_CHARS = 2000;

export const TranscriptTextEdit = z
  .strictObject({
    text: z
      .string()
      .max(MAX_CORRECTION_CHARS)
      .meta({
        description:
          'The new words, as written (case and punctuation kept). Empty is allowed only with a word range, and deletes the range; a line keeps at least one word',
      }),
    word_start: z.number().int().min(0).optional().meta({ description: 'First word of the range to replace (0-based, as the reassign route counts); both omitted = the whole line' }),
    word_end: z.number().int().min(0).optional().meta({ description: 'Last word of the range (inclusive)' }),
    base_revision: BaseRevision,
  })
  .meta({ id: 'TranscriptTextEdit' });

const ReplaceFields = {
  find: z
    .string()
    .min(1)
    .max(MAX_CORRECTION_CHARS)
    .regex(/\S/, 'should contain something to find, not only spaces')
    .meta({ description: 'Text to find in each line (its words joined by single spaces); a phrase matches across word boundaries ("show on")' }),
  replace: z.string().max(MAX_CORRECTION_CHARS).meta({ description: 'What it becomes; empty deletes the matched words (a line keeps at least one word)' }),
  match_case: z.boolean().optional().meta({ description: 'Default false' }),
  whole_words: z.boolean().optional().meta({ description: 'Match only where no letter, digit or apostrophe touches either end. Default false' }),
  preview: z.boolean().optional().meta({ description: 'Count and list the matches without changing anything. Default false' }),
};

export const TranscriptReplace = z.strictObject({ ...ReplaceFields, base_revision: BaseRevision }).meta({ id: 'TranscriptReplace' });

export const ProjectTranscriptReplace = z.strictObject(ReplaceFields).meta({ id: 'ProjectTranscriptReplace' });

export const ReplaceMatch = z
  .object({
    segment_id: z.number().int(),
    word_start: z.number().int().meta({ description: 'First word the match touches' }),
    word_end: z.number().int().meta({ description: 'Last word the match touches (inclusive)' }),
    before: z.string().meta({ description: 'Those words now' }),
    after: z.string().meta({ description: 'What they become' }),
  })
  .meta({ id: 'ReplaceMatch' });

export const TranscriptReplaceResult = z
  .object({
    preview: z.boolean(),
    count: z.number().int().meta({ description: 'Matches found' }),
    matches: z.array(ReplaceMatch),
    revision: TranscriptRevision.nullable().meta({ description: 'The revision made; null for a preview or when nothing matched' }),
    session: Session.optional().meta({ description: 'The session after the replacement (absent for a preview)' }),
  })
  .meta({ id: 'TranscriptReplaceResult' });

export const ProjectTranscriptReplaceResult = z
  .object({
    preview: z.boolean(),
    count: z.number().int().meta({ description: 'Matches over the project' }),
    recordings: z.array(
      z.object({
        session_id: Uuid,
        file_name: z.string(),
        count: z.number().int(),
        matches: z.array(ReplaceMatch),
        revision: TranscriptRevision.nullable().meta({ description: "This recording's new revision; null for a preview or without a match" }),
      }),
    ),
  })
  .meta({ id: 'ProjectTranscriptReplaceResult' });

export type TranscriptReplaceResult = z.infer<typeof TranscriptReplaceResult>;
export type ProjectTranscriptReplaceResult = z.infer<typeof ProjectTranscriptReplaceResult>;

// --- Script alignment (POST …/transcript/align) ---

export const ScriptAlign = z
  .strictObject({
    text: z.string().meta({
      description:
        'The script: plain text, or lines beginning `NAME: ` (a label names the speaker of its line and of the unlabelled lines after it). At most 1,000,000 bytes and 200,000 words.',
    }),
    base_revision: BaseRevision,
  })
  .meta({ id: 'ScriptAlign' });

export const ScriptAlignment = z
  .object({
    words: z.number().int().meta({ description: 'Words of the script, each now a transcript word with a time' }),
    aligned: z.number().int().meta({ description: 'Words the forced aligner placed in the audio' }),
    interpolated: z.number().int().meta({ description: 'Words whose times were spread over their stretch by length (the aligner could not place them)' }),
    stretches: z.number().int().meta({ description: 'Stretches of audio aligned one by one between anchors' }),
    failed_stretches: z.number().int().meta({ description: 'Stretches the aligner could not decode at all' }),
    anchored: z.number().int().meta({ description: 'Script words matched to the recognized words in runs of three or more (the anchors)' }),
    pronounced: z.number().int().meta({ description: 'Words the dictionary lacked that were given pronunciations (espeak-ng) for the aligner' }),
    speaker_names: z
      .record(z.string(), z.string())
      .nullable()
      .meta({ description: "The script's speaker names and the labels they became (null when the script names none and speakers came from diarization)" }),
  })
  .meta({ id: 'ScriptAlignment' });

export const ScriptAlignResult = TranscriptEditResult.extend({ alignment: ScriptAlignment }).meta({ id: 'ScriptAlignResult' });

export type ScriptAlignResult = z.infer<typeof ScriptAlignResult>;
