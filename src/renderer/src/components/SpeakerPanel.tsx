import { useEffect, useState } from 'react';
import type { MappedSession, TranscriptEdit } from '../api/transcript-edits';
import { useApp } from '../app-context';
import { formatDuration, speakerColor } from '../lib/format';
import { speakersInOrder } from '../lib/speaker-names';
import { SpeakerIdentity } from './SpeakerIdentity';
import { useEdit } from './use-edit';

/**
 * The recording's speakers in the side panel: seconds each, merging one speaker into another, and undo of
 * the last speaker fix (every fix is a transcript revision; the recognizer's transcript is revision 0).
 */
export function SpeakerPanel({
  session,
  revision,
  revisionAuthor,
  speakerName,
  onEdited,
  onSession,
}: {
  session: MappedSession;
  revision: number | undefined;
  /** Who made the current revision (the user's display name, the key's name, "the desktop"). */
  revisionAuthor?: string | null;
  speakerName: (label: string) => string;
  onEdited: (edit: TranscriptEdit) => void;
  /** The session with a new speaker map (a speaker renamed, a match rejected). */
  onSession: (session: MappedSession) => void;
}) {
  const { api } = useApp();
  // In the order the recording first hears them (the labels' numbers and the project's may differ).
  const labels = speakersInOrder(session.transcript);
  const [from, setFrom] = useState('');
  const [into, setInto] = useState('');
  const { busy, run, errorLine } = useEdit(onEdited);
  useEffect(() => {
    setFrom((f) => (labels.includes(f) ? f : (labels[1] ?? '')));
    setInto((i) => (labels.includes(i) ? i : (labels[0] ?? '')));
  }, [labels.join(' ')]);

  const seconds = new Map<string, number>();
  for (const s of session.transcript?.segments ?? []) seconds.set(s.speaker, (seconds.get(s.speaker) ?? 0) + (s.end - s.start));


  return (
    <div data-testid="speaker-panel">
      <h4>Speakers</h4>
      <ul className="speaker-list">
        {labels.map((l) => (
          <li key={l} data-testid="speaker-item" data-label={l}>
            <span className="swatch" style={{ background: speakerColor(l) }} />
            <SpeakerIdentity session={session} label={l} onSession={onSession} />
            <span className="hint num">{formatDuration(seconds.get(l) ?? 0)}</span>
          </li>
        ))}
      </ul>
      {labels.length > 1 && (
        <div className="merge-row">
          {(
            [
              ['Merge this speaker', from, setFrom, 'merge-from'],
              ['into this speaker', into, setInto, 'merge-into'],
            ] as const
          ).map(([label, value, set, testId], i) => (
            <span key={testId} className="merge-pick">
              {i === 1 && <span className="hint">into </span>}
              <select aria-label={label} value={value} onChange={(e) => set(e.target.value)} data-testid={testId}>
                {labels.map((l) => (
                  <option key={l} value={l}>
                    {speakerName(l)}
                  </option>
                ))}
              </select>
            </span>
          ))}
          <button
            disabled={busy || !from || !into || from === into}
            onClick={() => run(() => api.mergeSpeakers(session.id, { from, into, base_revision: revision }))}
            data-testid="merge-speakers"
          >
            Merge
          </button>
        </div>
      )}
      <div className="edit-row">
        <span className="hint" data-testid="revision">
          {revision ? `Revision ${revision} (edited)` : 'As recognized'}
        </span>
        {revision && revisionAuthor ? (
          <span className="hint" data-testid="revision-author">
            by {revisionAuthor}
          </span>
        ) : null}
        <button
          className="ghost"
          disabled={busy || !revision}
          onClick={() => run(() => api.restoreRevision(session.id, revision! - 1, revision))}
          data-testid="undo-edit"
          title="Back to the previous revision"
        >
          Undo
        </button>
      </div>
      {errorLine}
      <div className="hint">
        Click a name here to rename that speaker in every recording of the project; click a speaker's name in the
        transcript to move that line or some of its words, or to split it.
      </div>
    </div>
  );
}
