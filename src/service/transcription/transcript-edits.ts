import type { Db } from '../storage/database';
import type { SessionStore } from '../storage/session-store';
import type { ProjectStore } from '../storage/project-store';
import type { RevisionEdit, RevisionRecord, TranscriptRevisionStore } from '../storage/revision-store';
import type { JobRunner } from '../jobs/job-runner';
import type { AnalysisService } from '../analysis/analysis-service';
import type { SessionSpeakerEditor, SpeakerSnapshot } from '../speakers/session-speakers';
import { queueSpeakerProfiles } from '../speakers/profile-job';
import type { Transcript } from '../speech/types';
import { HttpError, ValidationFailure } from '../http/errors';
import { issue } from '../http/validation';
import { mergeSpeakers, newSpeakerLabel, reassignSpeaker, SpeakerEditError, splitSegment, type EditResult } from './speaker-edits';

export interface TranscriptEditDeps {
  db: Db;
  sessions: SessionStore;
  projects: ProjectStore;
  revisions: TranscriptRevisionStore;
  speakers: SessionSpeakerEditor;
  analysis: AnalysisService;
  jobs: JobRunner;
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

  reassign(sessionId: string, input: { segmentId: number; wordStart?: number; wordEnd?: number; to: SpeakerChoice; baseRevision?: number }): RevisionRecord {
    return this.commit(sessionId, input.baseRevision, (transcript) => {
      const { label, pinned } = this.resolveChoice(sessionId, transcript, input.to);
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

  merge(sessionId: string, input: { from: string; into: string; baseRevision?: number }): RevisionRecord {
    return this.commit(sessionId, input.baseRevision, (transcript) => {
      const result = mergeSpeakers(transcript, input.from, input.into);
      return { result, edit: { op: 'merge', from: input.from, into: input.into, touched: result.touched } };
    });
  }

  split(sessionId: string, input: { segmentId: number; wordIndex: number; baseRevision?: number }): RevisionRecord {
    return this.commit(sessionId, input.baseRevision, (transcript) => {
      const result = splitSegment(transcript, input.segmentId, input.wordIndex);
      return { result, edit: { op: 'split', segment_id: input.segmentId, word_index: input.wordIndex, touched: result.touched } };
    });
  }

  /** Makes an earlier revision current again, as a new revision (undo that can itself be undone). */
  restore(sessionId: string, revision: number, baseRevision?: number): RevisionRecord {
    return this.commit(sessionId, baseRevision, () => {
      const earlier = this.deps.revisions.get(sessionId, revision);
      if (!earlier) throw new HttpError(404, `No revision ${revision} of this transcript.`);
      if (revision === this.deps.revisions.current(sessionId)) throw new HttpError(409, `Revision ${revision} is already the current one.`);
      // The earlier snapshot carries the profiles measured for its own speech; the map is reconciled below.
      return { result: { transcript: earlier, touched: [] }, edit: { op: 'restore', revision, touched: [] } };
    });
  }

  // --- Script alignment (transcription/script-align.ts) ---

  /** The transcript an edit would start from, checked before slow work: 404 unknown, 409 not ready or stale base. */
  editable(sessionId: string, baseRevision?: number): { transcript: Transcript; revision: number } {
    const transcript = this.completeTranscript(sessionId);
    const revision = this.deps.revisions.current(sessionId);
    if (baseRevision !== undefined && baseRevision !== revision) {
      throw new HttpError(409, `The transcript changed meanwhile (revision ${revision}, the script was aligned on ${baseRevision}); reload it and align again.`);
    }
    return { transcript, revision };
  }

  /** A whole new transcript built from the current one (a script aligned to the audio), as the next revision. */
  replaceTranscript(
    sessionId: string,
    baseRevision: number,
    build: (transcript: Transcript) => { transcript: Transcript; edit: RevisionEdit; pins: Array<{ label: string; speakerId: string }> },
  ): RevisionRecord {
    return this.commit(sessionId, baseRevision, (current) => {
      const built = build(current);
      return { result: { transcript: built.transcript, touched: built.edit.touched }, edit: built.edit, pinned: built.pins[0], morePins: built.pins.slice(1) };
    });
  }

  // --- end script alignment ---

  revisions(sessionId: string): { current: number; data: RevisionRecord[] } {
    const transcript = this.completeTranscript(sessionId);
    return { current: this.deps.revisions.current(sessionId), data: this.deps.revisions.list(sessionId, transcript) };
  }

  revision(sessionId: string, revision: number): { record: RevisionRecord; transcript: Transcript } {
    const transcript = this.completeTranscript(sessionId);
    const record = this.deps.revisions.list(sessionId, transcript).find((r) => r.revision === revision);
    const stored = record ? this.deps.revisions.get(sessionId, revision) : null;
    if (!record || !stored) throw new HttpError(404, `No revision ${revision} of this transcript.`);
    return { record, transcript: stored };
  }

  private completeTranscript(sessionId: string): Transcript {
    const summary = this.deps.sessions.summary(sessionId);
    if (!summary) throw new HttpError(404, 'Transcription session not found.');
    const transcript = summary.status === 'complete' ? this.deps.sessions.transcript(sessionId) : null;
    if (!transcript) throw new HttpError(409, `The transcript is not ready (status: ${summary.status}).`);
    return transcript;
  }

  private resolveChoice(sessionId: string, transcript: Transcript, choice: SpeakerChoice): { label: string; pinned?: { label: string; speakerId: string } } {
    if ('speaker' in choice) {
      if (choice.speaker === 'new') return { label: newSpeakerLabel(transcript) };
      if (!transcript.speakers.includes(choice.speaker)) {
        throw new SpeakerEditError('speaker', `No speaker ${choice.speaker} in this recording (${transcript.speakers.join(', ')}); use "new" for another voice.`);
      }
      return { label: choice.speaker };
    }
    const summary = this.deps.sessions.summary(sessionId)!;
    if (!this.deps.projects.speakers(summary.project.id).some((s) => s.id === choice.speakerId)) {
      throw new SpeakerEditError('speaker_id', `No speaker ${choice.speakerId} in project ${summary.project.key}.`);
    }
    const existing = this.deps.speakers.labelOf(sessionId, choice.speakerId);
    if (existing && transcript.speakers.includes(existing)) return { label: existing };
    const label = newSpeakerLabel(transcript);
    return { label, pinned: { label, speakerId: choice.speakerId } };
  }

  private commit(sessionId: string, baseRevision: number | undefined, build: (transcript: Transcript) => Commit): RevisionRecord {
    const { db, revisions, speakers, analysis, jobs } = this.deps;
    return db.transaction(() => {
      const transcript = this.completeTranscript(sessionId);
      const current = revisions.current(sessionId);
      if (baseRevision !== undefined && baseRevision !== current) {
        throw new HttpError(409, `The transcript changed meanwhile (revision ${current}, the edit was made on ${baseRevision}); reload it and edit again.`);
      }
      let commit: Commit;
      try {
        commit = build(transcript);
      } catch (error) {
        if (error instanceof SpeakerEditError) throw new ValidationFailure([issue(['body', error.field], error.message, 'value_error', null)]);
        throw error;
      }
      const revision = revisions.append(sessionId, commit.result.transcript, commit.edit, speakers.snapshot(sessionId));
      const restoredMap = commit.edit.op === 'restore' ? (revisions.speakers(sessionId, commit.edit.revision) as SpeakerSnapshot | null) : null;
      if (restoredMap) speakers.restoreSnapshot(sessionId, commit.result.transcript, restoredMap);
      else speakers.applyEdit(sessionId, commit.result.transcript, commit.pinned);
      for (const pin of commit.morePins ?? []) speakers.applyEdit(sessionId, commit.result.transcript, pin);
      // Lines and speakers changed: the analysis' speaker fields and per-line results must follow.
      analysis.queueAfterEdit(sessionId);
      if (commit.result.touched.length > 0 || commit.edit.op === 'restore') queueSpeakerProfiles(db, jobs, sessionId);
      return revisions.list(sessionId, null).find((r) => r.revision === revision)!;
    })();
  }
}
