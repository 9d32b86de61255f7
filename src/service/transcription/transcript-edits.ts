import type { RevisionEdit, RevisionRecord } from '../storage/revision-store';
import { currentActor } from '../audit/actor';
import type { Database, Stores } from '../storage/stores';
import type { JobRunner } from '../jobs/job-runner';
import type { AnalysisService } from '../analysis/analysis-service';
import type { SessionSpeakerEditor, SpeakerSnapshot } from '../speakers/session-speakers';
import { queueSpeakerProfiles } from '../speakers/profile-job';
import type { Transcript } from '../speech/types';
import { ConflictError, InvalidInputError, issue, NotFoundError } from '../errors';
import { mergeSpeakers, newSpeakerLabel, reassignSpeaker, SpeakerEditError, splitSegment, type EditResult } from './speaker-edits';
import type { Aligner, Span } from '../speech/types';
import { timeCorrections } from './correction-timing';
import { typedWords, type CorrectionLearning } from './correction-learning';
import {
  applyCorrections,
  confirmLine,
  correctLine,
  findMatches,
  replaceCorrections,
  type GapTiming,
  type LineCorrection,
  type ReplaceMatch,
  type ReplaceQuery,
} from './text-corrections';

/** The records an edit answers with, as the routes name them. */
export type { RevisionRecord };

export interface TranscriptEditDeps {
  database: Database;
  speakers: SessionSpeakerEditor;
  analysis: AnalysisService;
  jobs: JobRunner;
  /** Word corrections: the forced aligner (null when none is installed: new words are then spread by syllables). */
  aligner?: () => Aligner | null;
  /** Word corrections: the recording's audio over a few stretches (media/decode-spans.ts). */
  audio?: (sessionId: string, spans: readonly Span[]) => Promise<Float32Array[]>;
  /** What corrections teach: typed words into the vocabulary, speakers adapted again (correction-learning.ts). */
  learning?: CorrectionLearning;
}

export interface ReplaceOutcome {
  count: number;
  matches: ReplaceMatch[];
  /** The revision the replacement made (null for a preview, or when nothing matched). */
  revision: RevisionRecord | null;
}

/** A recording's part of a project-wide find and replace, before it is made (`TranscriptEditor.planProjectReplace`). */
export interface ProjectReplacePlan {
  session_id: string;
  file_name: string;
  /** The transcript revision the matches were found on, and the replacement must be made on. */
  revision: number;
  matches: ReplaceMatch[];
  /** False when nothing matched (no revision is made). */
  changes: boolean;
}

/** Who gets the speech: a label of the recording, `new` for a new speaker, or a project speaker. */
export type SpeakerChoice = { speaker: string } | { speakerId: string };

interface Commit {
  result: EditResult;
  edit: RevisionEdit;
  pinned?: { label: string; speakerId: string };
  /** More labels tied to project speakers (a script's names). */
  morePins?: Array<{ label: string; speakerId: string }>;
}

/**
 * Speaker fixes by hand, each stored as a transcript revision (the recognizer's transcript kept as revision
 * 0). An edit becomes the session's transcript at once, so the session, every export and the next analysis
 * read it; it queues a new analysis run (speakers and lines changed) and, when speech moved between voices,
 * a measurement of the voice profiles that then updates the project's known speakers.
 */
export class TranscriptEditor {
  constructor(private readonly deps: TranscriptEditDeps) {}

  /** "Not this person": the voice `label` is not the project speaker it was matched to (session-speakers.ts). */
  rejectSpeakerMatch(sessionId: string, label: string, speakerId?: string): Promise<string> {
    return this.deps.speakers.rejectMatch(sessionId, label, speakerId);
  }

  reassign(sessionId: string, input: { segmentId: number; wordStart?: number; wordEnd?: number; to: SpeakerChoice; baseRevision?: number }): Promise<RevisionRecord> {
    return this.commit(sessionId, input.baseRevision, async (transcript, stores) => {
      const { label, pinned } = await this.resolveChoice(stores, sessionId, transcript, input.to);
      const from = transcript.segments.find((s) => s.id === input.segmentId)?.speaker ?? '';
      const result = reassignSpeaker(transcript, { segmentId: input.segmentId, wordStart: input.wordStart, wordEnd: input.wordEnd, speaker: label });
      return {
        result,
        pinned,
        edit: {
          op: 'reassign',
          segment_id: input.segmentId,
          word_start: input.wordStart ?? null,
          word_end: input.wordEnd ?? null,
          from,
          speaker: label,
          speaker_id: pinned?.speakerId ?? null,
          touched: result.touched,
        },
      };
    });
  }

  merge(sessionId: string, input: { from: string; into: string; baseRevision?: number }): Promise<RevisionRecord> {
    return this.commit(sessionId, input.baseRevision, (transcript) => {
      const result = mergeSpeakers(transcript, input.from, input.into);
      return { result, edit: { op: 'merge', from: input.from, into: input.into, touched: result.touched } };
    });
  }

  split(sessionId: string, input: { segmentId: number; wordIndex: number; baseRevision?: number }): Promise<RevisionRecord> {
    return this.commit(sessionId, input.baseRevision, (transcript) => {
      const result = splitSegment(transcript, input.segmentId, input.wordIndex);
      return { result, edit: { op: 'split', segment_id: input.segmentId, word_index: input.wordIndex, touched: result.touched } };
    });
  }

  // ---- Word corrections: a line's text, find and replace. Timing happens outside the database
  // transaction (alignment takes a decoder); the commit then checks the revision it was computed on.

  /** A line's words (or a word range) become `text`: unchanged words keep their times, the others are aligned. */
  async editText(sessionId: string, input: { segmentId: number; text: string; wordStart?: number; wordEnd?: number; baseRevision?: number }): Promise<RevisionRecord> {
    const { transcript, revision } = await this.editable(sessionId, input.baseRevision);
    // The line is in the path: an unknown one is a missing resource, as an unknown session is.
    if (!transcript.segments.some((s) => s.id === input.segmentId)) {
      throw new NotFoundError(`No line ${input.segmentId} in the transcript (lines are 0–${transcript.segments.length - 1}).`);
    }
    const correction = asValidation(() => correctLine(transcript, input));
    if (correction.after === correction.before) {
      throw new InvalidInputError([issue(['text'], 'That is already the line’s text; nothing to change.', 'value_error', input.text)]);
    }
    const timed = await this.timeCorrections(sessionId, transcript, [correction]);
    const { transcript: corrected, records } = applyCorrections(transcript, timed.corrections, timed.timings);
    // The whole line saved: the editor confirmed every word of it, the unchanged ones too.
    const whole = input.wordStart === undefined && input.wordEnd === undefined;
    const next = whole ? confirmLine(corrected, input.segmentId) : corrected;
    return this.commit(sessionId, revision, () => ({
      result: { transcript: next, touched: [] },
      edit: { op: 'edit_text', segment_id: input.segmentId, word_start: input.wordStart ?? null, word_end: input.wordEnd ?? null, lines: records, touched: [] },
    }));
  }

  /**
   * Find and replace over a recording: a preview lists the matches; otherwise every match is replaced as one revision.
   * `signal` (a team's worker job, or a project-wide request) stops it before anything is stored.
   */
  async replace(sessionId: string, query: ReplaceQuery & { preview?: boolean; baseRevision?: number }, signal?: AbortSignal): Promise<ReplaceOutcome> {
    const { transcript, revision } = await this.editable(sessionId, query.baseRevision);
    const matches = findMatches(transcript, query);
    const corrections = asValidation(() => replaceCorrections(transcript, query));
    if (query.preview || corrections.length === 0) return { count: matches.length, matches, revision: null };
    const timed = await this.timeCorrections(sessionId, transcript, corrections);
    signal?.throwIfAborted();
    const { transcript: next, records } = applyCorrections(transcript, timed.corrections, timed.timings);
    const record = await this.commit(sessionId, revision, () => ({
      result: { transcript: next, touched: [] },
      edit: {
        op: 'replace',
        find: query.find,
        replace: query.replace,
        match_case: query.matchCase ?? false,
        whole_words: query.wholeWords ?? false,
        matches: matches.length,
        lines: records,
        touched: [],
      },
    }));
    return { count: matches.length, matches, revision: record };
  }

  /**
   * What a project-wide find and replace would do to each finished recording of the project (oldest first), read
   * and checked before any is written: a line the replacement would leave without words refuses the whole request.
   * `revision` is the one each recording's replacement must be made on (project-replace.ts).
   */
  async planProjectReplace(projectId: string, query: ReplaceQuery): Promise<ProjectReplacePlan[]> {
    const { data } = await this.deps.database.sessions.list({ projectId, limit: 1_000_000, offset: 0 });
    const plans: ProjectReplacePlan[] = [];
    for (const summary of data.filter((s) => s.status === 'complete').reverse()) {
      const { transcript, revision } = await this.editable(summary.id, undefined);
      const changes = asValidation(() => replaceCorrections(transcript, query)).length > 0;
      plans.push({ session_id: summary.id, file_name: summary.file_name, revision, matches: findMatches(transcript, query), changes });
    }
    return plans;
  }

  /**
   * The outcome of a replacement already made on `baseRevision`: its next revision, when that one is this very
   * replacement (same find, replace and options); null otherwise. A worker that died after storing a replacement
   * and before recording its job's answer is thus answered, not repeated, when the job runs again.
   */
  async replacedAlready(sessionId: string, query: ReplaceQuery, baseRevision: number): Promise<ReplaceOutcome | null> {
    const { revisions } = this.deps.database;
    if ((await revisions.current(sessionId)) <= baseRevision) return null;
    const made = (await revisions.list(sessionId, null)).find((r) => r.revision === baseRevision + 1);
    const edit = made?.edit;
    if (!made || edit?.op !== 'replace' || !sameReplace(edit, query)) return null;
    const before = await revisions.get(sessionId, baseRevision);
    if (!before) return null;
    const matches = findMatches(before, query);
    return { count: matches.length, matches, revision: made };
  }

  private timeCorrections(sessionId: string, transcript: Transcript, corrections: readonly LineCorrection[]): Promise<{ corrections: LineCorrection[]; timings: GapTiming[][] }> {
    const audio = this.deps.audio;
    return timeCorrections(transcript, corrections, this.deps.aligner?.() ?? null, audio ? (spans) => audio(sessionId, spans) : null);
  }

  /** Makes an earlier revision current again, as a new revision (undo that can itself be undone). */
  restore(sessionId: string, revision: number, baseRevision?: number): Promise<RevisionRecord> {
    return this.commit(sessionId, baseRevision, async (_transcript, { revisions }) => {
      const earlier = await revisions.get(sessionId, revision);
      if (!earlier) throw new NotFoundError(`No revision ${revision} of this transcript.`);
      if (revision === (await revisions.current(sessionId))) throw new ConflictError(`Revision ${revision} is already the current one.`);
      // The earlier snapshot carries the profiles measured for its own speech; the map is reconciled below.
      return { result: { transcript: earlier, touched: [] }, edit: { op: 'restore', revision, touched: [] } };
    });
  }

  /**
   * The transcript an edit would start from, checked before slow work (alignment, word corrections): not found,
   * not ready, or a conflict when the client's base revision is already stale.
   */
  async editable(sessionId: string, baseRevision?: number): Promise<{ transcript: Transcript; revision: number }> {
    const transcript = await this.completeTranscript(this.deps.database, sessionId);
    const revision = await this.deps.database.revisions.current(sessionId);
    if (baseRevision !== undefined && baseRevision !== revision) {
      throw new ConflictError(`The transcript changed meanwhile (revision ${revision}, the change was made on ${baseRevision}); reload it and try again.`);
    }
    return { transcript, revision };
  }

  /** A whole new transcript built from the current one (a script aligned to the audio), as the next revision. */
  replaceTranscript(
    sessionId: string,
    baseRevision: number,
    build: (transcript: Transcript, stores: Stores) => Promise<{ transcript: Transcript; edit: RevisionEdit; pins: Array<{ label: string; speakerId: string }> }>,
  ): Promise<RevisionRecord> {
    return this.commit(sessionId, baseRevision, async (current, stores) => {
      const built = await build(current, stores);
      return { result: { transcript: built.transcript, touched: built.edit.touched }, edit: built.edit, pinned: built.pins[0], morePins: built.pins.slice(1) };
    });
  }

  // --- end script alignment ---

  async revisions(sessionId: string): Promise<{ current: number; data: RevisionRecord[] }> {
    const { revisions } = this.deps.database;
    const transcript = await this.completeTranscript(this.deps.database, sessionId);
    return { current: await revisions.current(sessionId), data: await revisions.list(sessionId, transcript) };
  }

  async revision(sessionId: string, revision: number): Promise<{ record: RevisionRecord; transcript: Transcript }> {
    const { revisions } = this.deps.database;
    const transcript = await this.completeTranscript(this.deps.database, sessionId);
    const record = (await revisions.list(sessionId, transcript)).find((r) => r.revision === revision);
    const stored = record ? await revisions.get(sessionId, revision) : null;
    if (!record || !stored) throw new NotFoundError(`No revision ${revision} of this transcript.`);
    return { record, transcript: stored };
  }

  private async completeTranscript({ sessions }: Stores, sessionId: string): Promise<Transcript> {
    const summary = await sessions.summary(sessionId);
    if (!summary) throw new NotFoundError('Transcription session not found.');
    const transcript = summary.status === 'complete' ? await sessions.transcript(sessionId) : null;
    if (!transcript) throw new ConflictError(`The transcript is not ready (status: ${summary.status}).`);
    return transcript;
  }

  private async resolveChoice(
    stores: Stores,
    sessionId: string,
    transcript: Transcript,
    choice: SpeakerChoice,
  ): Promise<{ label: string; pinned?: { label: string; speakerId: string } }> {
    if ('speaker' in choice) {
      if (choice.speaker === 'new') return { label: newSpeakerLabel(transcript) };
      if (!transcript.speakers.includes(choice.speaker)) {
        throw new SpeakerEditError('speaker', `No speaker ${choice.speaker} in this recording (${transcript.speakers.join(', ')}); use "new" for another voice.`);
      }
      return { label: choice.speaker };
    }
    const summary = (await stores.sessions.summary(sessionId))!;
    if (!(await stores.speakers.projectSpeakers(summary.project.id)).some((s) => s.id === choice.speakerId)) {
      throw new SpeakerEditError('speaker_id', `No speaker ${choice.speakerId} in project ${summary.project.key}.`);
    }
    const existing = await this.deps.speakers.labelOf(stores, sessionId, choice.speakerId);
    if (existing && transcript.speakers.includes(existing)) return { label: existing };
    const label = newSpeakerLabel(transcript);
    return { label, pinned: { label, speakerId: choice.speakerId } };
  }

  private commit(sessionId: string, baseRevision: number | undefined, build: (transcript: Transcript, stores: Stores) => Commit | Promise<Commit>): Promise<RevisionRecord> {
    const { database, speakers, analysis, jobs } = this.deps;
    return database.transaction(async (stores) => {
      const { revisions } = stores;
      const transcript = await this.completeTranscript(stores, sessionId);
      const current = await revisions.current(sessionId);
      if (baseRevision !== undefined && baseRevision !== current) {
        throw new ConflictError(`The transcript changed meanwhile (revision ${current}, the edit was made on ${baseRevision}); reload it and edit again.`);
      }
      let commit: Commit;
      try {
        commit = await build(transcript, stores);
      } catch (error) {
        if (error instanceof SpeakerEditError) throw new InvalidInputError([issue([error.field], error.message, 'value_error', null)]);
        throw error;
      }
      const learning = this.deps.learning;
      if (learning && (commit.edit.op === 'edit_text' || commit.edit.op === 'replace' || commit.edit.op === 'align_script')) {
        // Typed words the dictionary lacks join the project's vocabulary, in this transaction, and the edit says which.
        const projectId = (await stores.sessions.summary(sessionId))!.project.id;
        const added = await learning.learnWords(stores.projects, projectId, typedWords(commit.edit, commit.result.transcript));
        if (added.length) commit.edit = { ...commit.edit, vocabulary_added: added };
      }
      // Who made it: on the revision as its author, and in the audit trail in this same transaction.
      const actor = currentActor();
      const revision = await revisions.append(sessionId, commit.result.transcript, commit.edit, await speakers.snapshot(stores, sessionId), actor.name);
      const { project } = (await stores.sessions.summary(sessionId))!;
      await stores.audit.append({
        kind: 'transcript.revised',
        actor,
        project: { id: project.id, key: project.key },
        object: { type: 'recording', id: sessionId },
        detail: { revision, op: commit.edit.op },
      });
      const restoredMap = commit.edit.op === 'restore' ? ((await revisions.speakers(sessionId, commit.edit.revision)) as SpeakerSnapshot | null) : null;
      if (restoredMap) await speakers.restoreSnapshot(stores, sessionId, commit.result.transcript, restoredMap);
      else await speakers.applyEdit(stores, sessionId, commit.result.transcript, commit.pinned);
      for (const pin of commit.morePins ?? []) await speakers.applyEdit(stores, sessionId, commit.result.transcript, pin);
      // Lines and speakers changed: the analysis' speaker fields and per-line results must follow, in this transaction.
      await analysis.queueAfterEdit(sessionId, (await stores.sessions.summary(sessionId))!.duration, stores);
      if (commit.result.touched.length > 0 || commit.edit.op === 'restore') await queueSpeakerProfiles(jobs, sessionId, stores.jobs);
      // Words or speakers changed: each speaker's adaptation statistics of this recording are collected again,
      // corrected lines along the editor's words (queued after the profiles, which may remap the speakers).
      await learning?.relearn(sessionId, stores.jobs);
      return (await revisions.list(sessionId, null)).find((r) => r.revision === revision)!;
    });
  }
}

/** Whether a stored replacement is the one `query` asks for. */
function sameReplace(edit: { find: string; replace: string; match_case: boolean; whole_words: boolean }, query: ReplaceQuery): boolean {
  return edit.find === query.find && edit.replace === query.replace && edit.match_case === (query.matchCase ?? false) && edit.whole_words === (query.wholeWords ?? false);
}

/** Runs a pure correction step, turning its input errors into the validation shape (422, loc in the body). */
function asValidation<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof SpeakerEditError) throw new InvalidInputError([issue([error.field], error.message, 'value_error', null)]);
    throw error;
  }
}
