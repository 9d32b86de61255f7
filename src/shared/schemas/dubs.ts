import { z } from 'zod';
import { Timestamp, Uuid } from './common';

/** Longest line text a dub accepts (characters, after trimming). */
export const DUB_LINE_TEXT_MAX = 1000;
/** Most lines one dub may have. */
export const DUB_LINES_MAX = 5000;

export const DUB_STATUSES = ['preparing', 'ready', 'failed'] as const;
export const LINE_STATES = ['original', 'corrected', 'voiced'] as const;
export const REVOICE_STATUSES = ['queued', 'running', 'complete', 'failed', 'no_op'] as const;
export const REVOICE_FLAGS = [
  'stretched',
  'borrowed_silence',
  'does_not_fit',
  'gain_limited',
  'no_reference_loudness',
  'no_word_timings',
  'no_guide',
  'guide_by_span',
] as const;

/**
 * A dub id in a path, as the interface allows it (letters, digits, "_", "-"); ids the service assigns are
 * UUIDs, and any other well-formed id is simply not found.
 */
export const DubId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"')
  .meta({ description: 'Dub id (the service assigns UUIDs)', example: '5b0c4f8e-2d1a-4c3b-9e7f-0a1b2c3d4e5f' });

export const SpeakerLabel = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, 'must be 1–32 letters, digits, spaces, "_", "." or "-", starting with a letter or digit')
  .meta({ description: 'Speaker label, e.g. S1', example: 'S1' });

export const VoiceRef = z
  .string()
  .min(3)
  .max(120)
  .regex(/^[a-z0-9-]+\/[A-Za-z0-9_.+-]+$/, 'must be "<model>/<voice>", e.g. festival-hts/slt')
  .meta({ description: 'A voice as `<model id>/<voice id>` from `GET /v1/audio/models`', example: 'flite/rms' });

export const LineText = z
  .string()
  .trim()
  .min(1)
  .max(DUB_LINE_TEXT_MAX)
  .meta({ description: `The line's words, 1–${DUB_LINE_TEXT_MAX} characters (trimmed)`, example: 'We leave at dawn.' });

const Seconds = z.number().min(0).max(1e6);

export const LINE_GUIDES = ['original'] as const;
export const LineGuide = z
  .enum(LINE_GUIDES)
  .meta({
    id: 'LineGuide',
    description: "`original`: the revoiced line follows the original actor: warped word by word onto the original line's word timings (pitch kept) and its pitch moved to the original's median, within the line's slot",
  });
export type LineGuideName = z.infer<typeof LineGuide>;

/** One line of the `lines` part of a dub upload. */
export const DubLineInput = z
  .strictObject({
    speaker: SpeakerLabel.default('S1'),
    start: Seconds,
    end: Seconds,
    text: LineText,
    voice: VoiceRef.nullable().optional(),
  })
  .meta({ id: 'DubLineInput' });

export const DubLinesInput = z.array(DubLineInput).min(1).max(DUB_LINES_MAX);

export const DubVoices = z
  .record(SpeakerLabel, VoiceRef.nullable())
  .meta({ description: 'Voice per speaker label; `null` removes an assignment', example: { S1: 'festival-hts/slt', S2: 'flite/rms' } });

export const DubPatch = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    default_voice: VoiceRef.nullable().optional().meta({ description: "The dub's voice for speakers without one; `null`: the service's default" }),
    voices: DubVoices.optional(),
    guide: LineGuide.nullable().optional().meta({ description: "What the dub's revoiced lines follow unless a line says otherwise; `null`: nothing (each reading is fitted to its slot)" }),
  })
  .meta({ id: 'DubPatch' });

// ---- dubbing workflow: dub from the recording, split/merge/undo, review, exports, speed ----

export const REVIEW_STATUSES = ['todo', 'needs_changes', 'approved'] as const;
export const ReviewStatus = z.enum(REVIEW_STATUSES).meta({
  description: "A supervisor's review of the line: `todo` (to review; where every line starts, and where a change of its text, voice, timing or speed puts it back), `needs_changes`, `approved`",
});
export const LINE_SPEED_MIN = 0.8;
export const LINE_SPEED_MAX = 1.2;
export const LineSpeed = z
  .number()
  .min(LINE_SPEED_MIN)
  .max(LINE_SPEED_MAX)
  .meta({ description: `Speaking rate of the revoiced line, ${LINE_SPEED_MIN}–${LINE_SPEED_MAX} (1.1: 10 % faster), pitch kept; null: as the voice reads it`, example: 1.1 });


/** `POST …/dubs` with a JSON body: a dub of the recording's own original audio and current transcript. */
export const DubFromRecording = z
  .strictObject({
    source: z.literal('recording').meta({ description: "The recording's own original audio; its current transcript's lines (corrected speakers and words) become the dub's lines" }),
    name: z.string().trim().min(1).max(200).optional(),
    voices: DubVoices.optional(),
    default_voice: VoiceRef.optional(),
  })
  .meta({ id: 'DubFromRecording' });

export const LineSplit = z
  .strictObject({
    word_index: z.number().int().min(1).max(DUB_LINE_TEXT_MAX).optional().meta({
      description: 'Split before this word of the line\'s text (0-based; 1 … words − 1): the first part keeps the words before it',
    }),
    at: Seconds.optional().meta({ description: 'Split at this time (seconds on the dub timeline, strictly inside the line)' }),
  })
  .meta({
    id: 'LineSplit',
    description: 'Give `word_index`, `at`, or both. Alone, each finds the other from the word timings (which the line must have); together no timings are needed.',
  });

export const LineMerge = z
  .strictObject({ with: z.number().int().min(1).meta({ description: 'The next line in time (its id): it is merged into this one' }) })
  .meta({ id: 'LineMerge' });

export const LineNoteInput = z
  .strictObject({ text: z.string().trim().min(1).max(2000).meta({ description: 'The note, 1–2000 characters', example: 'Breath before "dawn" is clipped' }) })
  .meta({ id: 'LineNoteInput' });

export const LineNote = z
  .object({
    id: Uuid,
    line_id: z.number().int(),
    author: z.string().meta({ description: 'The API key\'s name, or "studio" for the studio\'s sign-in' }),
    created_at: Timestamp,
    text: z.string(),
  })
  .meta({ id: 'LineNote' });

export const LineHistoryEntry = z
  .object({
    op: z.enum(['split', 'merge']),
    at: Timestamp,
    from: z
      .array(
        z.object({
          id: z.number().int(),
          speaker: z.string(),
          start: z.number(),
          end: z.number(),
          text: z.string(),
          original_start: z.number(),
          original_end: z.number(),
          original_text: z.string(),
        }),
      )
      .meta({ description: 'The line(s) the edit took, as they were just before it' }),
  })
  .meta({ id: 'LineHistoryEntry' });

export const LinesQuery = z.object({
  review_status: ReviewStatus.optional().meta({ description: 'Only lines with this review status' }),
  left: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: '`true`: only what is left to do (lines not `approved`); `false`: only approved lines' }),
});

export const LineEdit = z
  .object({
    seq: z.number().int(),
    op: z.enum(['correct', 'split', 'merge']),
    author: z.string(),
    created_at: Timestamp,
    undone: z.boolean(),
    before: z.array(z.number().int()).meta({ description: 'Ids of the lines before the edit' }),
    after: z.array(z.number().int()).meta({ description: 'Ids of the lines after it' }),
  })
  .meta({ id: 'LineEdit' });

export const DUB_EXPORT_FORMATS = ['cues_csv', 'edl', 'fcpxml', 'stem_wav'] as const;
export const DubExportQuery = z.object({
  format: z.enum(DUB_EXPORT_FORMATS).meta({
    description: '`cues_csv`: ADR cue sheet; `edl`, `fcpxml`: a marker per revoiced line; `stem_wav`: only the revoiced lines of the current revision, the rest digital silence',
  }),
});

export const ReviewCounts = z
  .object({ todo: z.number().int(), needs_changes: z.number().int(), approved: z.number().int(), left: z.number().int().meta({ description: 'Lines not approved' }) })
  .meta({ id: 'ReviewCounts' });

// ---- end of the dubbing workflow block ----

// ---- dub takes and line revisions ----
export const LineBaseRevision = z
  .number()
  .int()
  .min(0)
  .meta({
    description:
      "The line's `revision` the edit was made on (or the dub's `lines_revision` when its lines were read): 409, and nothing changes, when the line has changed since (another window, another client)",
  });
// ---- end of the dub takes block ----

export const LinePatch = z
  .strictObject({
    text: LineText.optional(),
    voice: VoiceRef.nullable().optional().meta({ description: "This line's voice; `null`: its speaker's" }),
    start: Seconds.optional(),
    end: Seconds.optional(),
    review_status: ReviewStatus.optional(),
    speed: LineSpeed.nullable().optional(),
    guide: LineGuide.nullable().optional().meta({ description: "What this line's revoicing follows, overriding the dub's `guide`; `null`: the dub's" }),
    // ---- dub takes and line revisions ----
    base_revision: LineBaseRevision.optional(),
  })
  .meta({ id: 'LinePatch' });

export const WordTiming = z
  .object({ word: z.string(), start: z.number(), end: z.number() })
  .meta({ id: 'WordTiming' });

export const TimeSpan = z.object({ start: z.number(), end: z.number() });

/** What a revoice did to one line. */
export const LineRender = z
  .object({
    revision: z.number().int().meta({ description: 'The revision that first carried this rendering' }),
    revoice_id: Uuid.nullable().meta({ description: 'The revoice that rendered it; null for a chosen take (`take_id`)' }),
    text: z.string(),
    voice: z.string(),
    line_start: z.number().meta({ description: "The line's start when it was rendered" }),
    line_end: z.number(),
    slot: TimeSpan.meta({ description: 'Where the new voice may sound: the line, plus silence borrowed up to the next line' }),
    region: TimeSpan.extend({ start_frame: z.number().int(), end_frame: z.number().int() }).meta({
      description: 'Every sample written: the slot widened by the crossfade on each side; frames are [start_frame, end_frame)',
    }),
    speech: TimeSpan.meta({ description: 'Where the new voice sounds' }),
    synthesized_duration: z.number().meta({ description: 'Length of the synthesized speech after trimming its silence' }),
    stretch: z.number().meta({ description: 'Duration factor of the pitch-preserving time-stretch (0.8: 20 % shorter)' }),
    gain_db: z.number(),
    loudness: z.object({
      reference_lufs: z.number().nullable().meta({ description: 'The original line (BS.1770 integrated loudness)' }),
      result_lufs: z.number().nullable().meta({ description: 'The new line as mixed' }),
    }),
    overflow: z.number().meta({ description: 'Seconds of speech cut at the slot end (lines that do not fit)' }),
    flags: z.array(z.enum(REVOICE_FLAGS)),
    words: z.array(WordTiming).meta({ description: "Word timings of the new text on the dub timeline: the voice's own phone timings (festival's voices), else a forced alignment" }),
    word_timings: z.enum(['engine', 'alignment']).nullable().optional().meta({ description: '`engine`: `words` are the voice\'s own phone timings, moved as the reading was trimmed, stretched and placed; `alignment`: a forced alignment of the reading; null: none (flag `no_word_timings`). Absent on lines rendered before this was recorded.' }),
    speed: z.number().nullable().optional().meta({ description: "The line's speed when rendered (null: as the voice reads)" }),
    take_id: Uuid.nullable().optional().meta({ description: 'The take chosen for the line, when the rendering is a take' }),
    guide: LineGuide.nullable().optional().meta({ description: 'What the rendering followed: `original` (the original line\'s word timings and pitch) or null (fitted to the slot)' }),
    pitch_shift: z.number().optional().meta({ description: 'Semitones the reading\'s pitch was moved toward the original\'s (guided lines)' }),
  })
  .meta({ id: 'LineRender' });


export const DubLine = z
  .object({
    id: z.number().int().meta({ description: 'Line id within the dub: 1 upwards in time order when the dub is made; stable through edits (a part split off gets a new, never reused id), so lines are listed by time, not id' }),
    speaker: z.string(),
    start: z.number(),
    end: z.number(),
    original_start: z.number(),
    original_end: z.number(),
    text: z.string(),
    original_text: z.string(),
    corrected: z.boolean().meta({ description: 'The text differs from the original' }),
    voice: z.string().nullable().meta({ description: "This line's own voice, or null to use its speaker's" }),
    effective_voice: z.string().nullable().meta({ description: 'The voice a revoice would use' }),
    state: z.enum(LINE_STATES).meta({
      description: '`original`: the dub carries the original performance; `corrected`: its text, own voice or speed changed (or anything since it was last voiced): a revoice will voice it; `voiced`: the current revision carries it voiced at its current text, voice and timing',
    }),
    needs_revoice: z.boolean(),
    words: z.array(WordTiming).meta({ description: 'Word timings: of the voiced text when voiced, else of the original when the dub was transcribed' }),
    review_status: ReviewStatus,
    notes: z.array(LineNote).meta({ description: 'Oldest first; a merged line shows the notes of the lines merged into it' }),
    history: z.array(LineHistoryEntry).meta({ description: 'The splits and merges that made this line, oldest first, each with the line(s) as they were' }),
    speed: LineSpeed.nullable(),
    guide: LineGuide.nullable().meta({ description: "This line's own guide (null: the dub's)" }),
    effective_guide: LineGuide.nullable().meta({ description: "What a revoice of this line follows: its own guide, else the dub's" }),
    render: LineRender.nullable().meta({ description: 'How the current revision voiced this line, if it did' }),
    revision: z.number().int().meta({ description: "The dub's `lines_revision` at this line's last change (text, voice, timing, speed, review status, split, merge, undo): send it as `base_revision` to refuse a stale edit" }),
    updated_at: Timestamp,
  })
  .meta({ id: 'DubLine' });

export const DubAudioAddress = z
  .object({
    url: z.string().meta({ description: 'Signed address of the revision (WAV), valid for an hour; plays in an <audio> element, supports Range' }),
    download_url: z.string().meta({ description: 'The same file as an attachment' }),
    expires_in: z.number().int(),
  })
  .meta({ id: 'DubAudioAddress' });

export const DubRevision = z
  .object({
    number: z.number().int(),
    base: z.number().int().nullable().meta({ description: 'The revision it was built on' }),
    source: z.enum(['upload', 'revoice', 'take']).meta({ description: '`upload`: the dub as made; `revoice`: a revoice; `take`: a chosen take put in (`take_id`)' }),
    revoice_id: Uuid.nullable(),
    take_id: Uuid.nullable().meta({ description: 'The take this revision put in (source `take`)' }),
    lines_revoiced: z.array(z.number().int()),
    current: z.boolean(),
    created_at: Timestamp,
    audio: DubAudioAddress,
  })
  .meta({ id: 'DubRevision' });

// ---- dub takes ----
export const TAKES_MAX = 5;
export const TAKE_STATUSES = ['queued', 'rendering', 'ready', 'failed'] as const;
export const TAKE_SOURCES = ['synthesized', 'recorded'] as const;

export const TakesRequest = z
  .strictObject({
    count: z.number().int().min(1).max(TAKES_MAX).meta({ description: 'How many takes to render (1–5)' }),
    voices: z
      .array(VoiceRef)
      .min(1)
      .max(TAKES_MAX)
      .optional()
      .meta({ description: "Voices to render the takes in; default: the line's voice (`effective_voice`)" }),
    speeds: z
      .array(LineSpeed.nullable())
      .min(1)
      .max(TAKES_MAX)
      .optional()
      .meta({ description: "Speeds (0.8–1.2; null: fitted to the slot); default: the line's speed, then 0.9, 1.1, 0.95, 1.05" }),
  })
  .meta({ id: 'TakesRequest' });

/** The longest count-in a recorded take may carry (seconds). */
export const RECORDED_COUNT_IN_MAX = 30;

/** The text fields of a recorded take's upload (multipart/form-data, beside `file`). */
export const RecordedTakeFields = z.object({
  count_in: z.coerce
    .number()
    .min(0)
    .max(RECORDED_COUNT_IN_MAX)
    .default(0)
    .meta({ description: 'Seconds recorded before the line starts (the count-in), cut off; 0–30, default 0' }),
});

export const RecordedTakeUpload = z
  .object({
    file: z.string().meta({ format: 'binary', description: "The recording: any audio ffmpeg decodes; it starts `count_in` seconds before the line" }),
    count_in: z.number().min(0).max(RECORDED_COUNT_IN_MAX).optional().meta({ description: 'Seconds of count-in before the line (default 0)' }),
  })
  .meta({ id: 'RecordedTakeUpload' });

export const TakeChoice = z.strictObject({ take_id: Uuid.meta({ description: "One of the line's takes (ready, not stale)" }) }).meta({ id: 'TakeChoice' });

export const TakesQuery = z.object({
  wait: z.coerce.number().min(0).max(120).default(20).meta({ description: 'Seconds to wait for the takes to be rendered before answering 202 (0–120, default 20)' }),
});

export const DubTake = z
  .object({
    id: Uuid,
    line_id: z.number().int(),
    number: z.number().int().meta({ description: "1 upwards per line, in the order asked for" }),
    voice: z.string(),
    speed: z.number().nullable().meta({ description: 'The speed it was read at (null: fitted to the slot)' }),
    source: z.enum(TAKE_SOURCES).meta({ description: 'synthesized (rendered by a voice) or recorded (an uploaded recording of the line)' }),
    status: z.enum(TAKE_STATUSES),
    error: z.string().nullable(),
    text: z.string().meta({ description: 'The text it reads' }),
    stale: z.boolean().meta({ description: "The line's text or timing (or its neighbours) changed since it was rendered: it cannot be chosen" }),
    chosen: z.boolean().meta({ description: 'The current revision carries this take for the line' }),
    render: LineRender.omit({ revision: true, revoice_id: true }).nullable().meta({ description: 'How it came out (slot, stretch, overflow, flags, words), once ready' }),
    audio: DubAudioAddress.nullable().meta({ description: "Signed address of the take's audio once ready: the line's region (slot and crossfades) as the dub would sound with this take, WAV at the dub's format" }),
    created_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'DubTake' });
// ---- end of the dub takes block ----

export const DubFormat = z
  .object({
    sample_rate: z.number().int(),
    channels: z.number().int(),
    sample_format: z.enum(['s16', 's24', 's32', 'f32']).meta({ description: 'How revisions are stored (WAV)' }),
    frames: z.number().int(),
    duration: z.number(),
  })
  .meta({ id: 'DubFormat' });

export const RevoiceLine = z
  .object({
    line_id: z.number().int(),
    text: z.string(),
    voice: z.string(),
    status: z.enum(['pending', 'done']),
    attempt: z.number().int().nullable().meta({ description: 'Which run of the job rendered it (a resumed revoice keeps what earlier runs rendered)' }),
    render: LineRender.nullable(),
  })
  .meta({ id: 'RevoiceLine' });

export const Revoice = z
  .object({
    id: Uuid.nullable().meta({ description: 'null for a no-op (nothing to revoice)' }),
    dub_id: Uuid,
    status: z.enum(REVOICE_STATUSES),
    progress: z.number(),
    stage: z.string().nullable(),
    error: z.string().nullable(),
    attempts: z.number().int().meta({ description: 'Runs of the job (more than 1 after a restart resumed it)' }),
    base_revision: z.number().int(),
    revision: DubRevision.nullable().meta({ description: 'The new revision, once complete (the current one for a no-op)' }),
    lines: z.array(RevoiceLine),
    created_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'Revoice' });

export const SpeakerPitch = z
  .object({
    median_f0: z.number().nullable().meta({ description: "Median F0 of the speaker's voiced frames in the dub's audio, Hz" }),
    voiced_seconds: z.number().meta({ description: 'Seconds of voiced frames the median was taken over (at most 30 s of the speaker\'s lines are tracked)' }),
    gender: z.enum(['male', 'female']).nullable().meta({
      description: 'The gender of voice the pitch suggests (below 150 Hz male, above 170 Hz female, over at least 2 voiced seconds), used for the speaker\'s default voice; `null`: in between or too little speech, the service\'s default voice',
    }),
  })
  .meta({ id: 'SpeakerPitch' });

export const Dub = z
  .object({
    id: Uuid,
    session_id: Uuid,
    name: z.string(),
    file_name: z.string(),
    status: z.enum(DUB_STATUSES).meta({
      description: '`preparing`: deriving lines (transcribing the dub), or converting the recording\'s audio for a dub from the recording; `ready`: lines can be corrected and revoiced; `failed`: lines could not be derived (`error` says why)',
    }),
    progress: z.number(),
    stage: z.string().nullable(),
    error: z.string().nullable(),
    format: DubFormat,
    background: z.boolean().meta({ description: 'A music-and-effects stem was uploaded; revoiced lines are mixed over it' }),
    default_voice: z.string().nullable(),
    voices: z.record(z.string(), z.string()),
    speakers: z.array(z.string()),
    speaker_pitch: z.record(z.string(), SpeakerPitch).meta({
      description: "Each speaker's pitch measured from the dub's audio when its lines were set, and the gender of default voice it gives (a speaker without a voice of its own, in a dub without `default_voice`). Empty for dubs made before it was measured",
    }),
    guide: LineGuide.nullable().meta({ description: "What the dub's revoiced lines follow unless a line says otherwise (null: each reading is fitted to its slot)" }),
    current_revision: z.number().int(),
    revision_count: z.number().int(),
    lines: z.object({ total: z.number().int(), corrected: z.number().int(), pending: z.number().int().meta({ description: 'Lines a revoice would voice' }) }),
    review: ReviewCounts,
    source: z.enum(['upload', 'recording']).meta({ description: "`upload`: revision 1 is an uploaded file; `recording`: the recording's own original audio" }),
    transcript_revision: z.number().int().nullable().meta({ description: "The recording's transcript revision the lines came from (dubs from the recording)" }),
    active_revoice: Uuid.nullable(),
    lines_revision: z.number().int().meta({ description: "Raised by every change to the dub's lines; each line's `revision` is its value at the line's last change" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Dub' });

export type DubLineInput = z.infer<typeof DubLineInput>;
export type SpeakerPitch = z.infer<typeof SpeakerPitch>;
export type DubPatch = z.infer<typeof DubPatch>;
export type LinePatch = z.infer<typeof LinePatch>;
export type DubFromRecording = z.infer<typeof DubFromRecording>;
export type LineSplit = z.infer<typeof LineSplit>;
export type LineNote = z.infer<typeof LineNote>;
export type LineEdit = z.infer<typeof LineEdit>;
export type ReviewStatus = z.infer<typeof ReviewStatus>;
export type DubExportFormat = (typeof DUB_EXPORT_FORMATS)[number];
export type LineRender = z.infer<typeof LineRender>;
export type DubLine = z.infer<typeof DubLine>;
export type DubRevision = z.infer<typeof DubRevision>;
export type DubFormat = z.infer<typeof DubFormat>;
export type Dub = z.infer<typeof Dub>;
export type Revoice = z.infer<typeof Revoice>;
export type RevoiceLine = z.infer<typeof RevoiceLine>;
export type RevoiceFlag = (typeof REVOICE_FLAGS)[number];
export type WordTiming = z.infer<typeof WordTiming>;
// ---- dub takes ----
export type TakesRequest = z.infer<typeof TakesRequest>;
export type TakeChoice = z.infer<typeof TakeChoice>;
export type DubTake = z.infer<typeof DubTake>;
// ---- end of the dub takes block ----
