import { useState } from 'react';
import type { MappedSession, SpeakerTarget, TranscriptEdit } from '../api/transcript-edits';
import type { ProjectSpeaker, TranscriptSegment } from '../api/types';
import { useApp } from '../app-context';
import { speakerColor } from '../lib/format';
import { Modal } from './Modal';
import { useEdit } from './use-edit';

/** A word range of the line, first and last word inclusive. */
interface Selection {
  anchor: number;
  from: number;
  to: number;
}

/**
 * Fixes one line's speaker: give the whole line, or a range of its words (click a word, shift-click
 * another), to another speaker of the recording, a new speaker or a known project speaker; or split the
 * line before the selected word.
 */
export function LineSpeakerDialog({
  session,
  segment,
  revision,
  projectSpeakers,
  speakerName,
  onEdited,
  onClose,
}: {
  session: MappedSession;
  segment: TranscriptSegment;
  revision: number | undefined;
  projectSpeakers: ProjectSpeaker[];
  speakerName: (label: string) => string;
  onEdited: (edit: TranscriptEdit) => void;
  onClose: () => void;
}) {
  const { api } = useApp();
  const [selection, setSelection] = useState<Selection | null>(null);
  const { busy, run, errorLine } = useEdit(onEdited, onClose);
  const labels = session.transcript?.speakers ?? [];
  const mapped = new Set(Object.values(session.speaker_map ?? {}).map((e) => e.speaker_id));
  const known = projectSpeakers.filter((s) => !mapped.has(s.id));
  const partial = selection !== null && !(selection.from === 0 && selection.to === segment.words.length - 1);

  const pick = (index: number, extend: boolean) =>
    setSelection((s) =>
      extend && s ? { anchor: s.anchor, from: Math.min(s.anchor, index), to: Math.max(s.anchor, index) } : { anchor: index, from: index, to: index },
    );

  const give = (target: SpeakerTarget) =>
    run(() =>
      api.reassignSpeaker(session.id, {
        segment_id: segment.id,
        ...(partial ? { word_start: selection!.from, word_end: selection!.to } : {}),
        ...target,
        base_revision: revision,
      }),
    );
  const split = () =>
    run(() => api.splitLine(session.id, { segment_id: segment.id, word_index: selection!.from, base_revision: revision }));

  return (
    <Modal title={`Line ${segment.id + 1}: ${speakerName(segment.speaker)}`} onClose={onClose} testId="line-speaker-dialog">
      <p className="hint">Click a word, shift-click another to select a range; with no selection the whole line moves.</p>
      <div className="word-chips" data-testid="edit-words">
        {segment.words.map((w, i) => (
          <button
            key={i}
            type="button"
            className="chip"
            aria-pressed={selection !== null && i >= selection.from && i <= selection.to}
            onClick={(e) => pick(i, e.shiftKey)}
            data-testid="edit-word"
          >
            {w.word}
          </button>
        ))}
      </div>
      <div className="edit-row">
        <span className="hint" data-testid="edit-selection">
          {selection === null
            ? 'Whole line'
            : selection.from === selection.to
              ? `Word ${selection.from + 1}`
              : `Words ${selection.from + 1}–${selection.to + 1}`}
        </span>
        {selection && (
          <button type="button" className="ghost" onClick={() => setSelection(null)}>
            Clear
          </button>
        )}
        <button
          type="button"
          disabled={busy || selection === null || selection.from < 1}
          onClick={split}
          data-testid="split-line"
          title="The selected word starts a new line"
        >
          Split before “{selection ? segment.words[selection.from]?.word : '…'}”
        </button>
      </div>
      <h4>Give {partial ? 'the selected words' : 'the line'} to</h4>
      <div className="speaker-choices">
        {labels
          .filter((l) => partial || l !== segment.speaker)
          .map((l) => (
            <button key={l} type="button" disabled={busy} onClick={() => give({ speaker: l })} data-testid={`give-${l}`}>
              <span className="swatch" style={{ background: speakerColor(l) }} /> {speakerName(l)}
            </button>
          ))}
        <button type="button" disabled={busy} onClick={() => give({ speaker: 'new' })} data-testid="give-new">
          New speaker
        </button>
        {known.map((s) => (
          <button key={s.id} type="button" disabled={busy} onClick={() => give({ speaker_id: s.id })} title="A known voice of this project">
            {s.name}
          </button>
        ))}
      </div>
      {errorLine}
      <div className="actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
