/**
 * One speaker of the recording in the Speakers panel: its name (click to rename the project speaker: every
 * recording and export of the project then says it), and, when the voice was matched to a speaker the
 * project already knew, how close the match is and "Not this person" to reject it.
 */
import { useState } from 'react';
import { messageOf } from '../api/errors';
import type { MappedSession, SpeakerMapEntry } from '../api/transcript-edits';
import { useApp } from '../app-context';
import { firstHeardNote, matchCertainty } from '../lib/speaker-names';

export function SpeakerIdentity({
  session,
  label,
  onSession,
}: {
  session: MappedSession;
  label: string;
  onSession: (session: MappedSession) => void;
}) {
  const { api, store } = useApp();
  const entry: SpeakerMapEntry | undefined = session.speaker_map?.[label];
  const name = entry?.name ?? label;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    act(async () => {
      const next = draft.trim();
      if (!entry || !next || next === entry.name) return setEditing(false);
      await api.renameProjectSpeaker(session.project.key, entry.speaker_id, next);
      // The session (its speaker map) is read again: the service names the speaker in one place.
      onSession((await api.getSession(session.id)) as MappedSession);
      setEditing(false);
      store.getState().notify(`${entry.name} is now “${next}” in every recording of ${session.project.name}`);
    });
  const reject = () =>
    act(async () => {
      if (!entry) return;
      const result = await api.rejectSpeakerMatch(session.id, label, entry.speaker_id);
      onSession({ ...session, speaker_map: result.speaker_map });
      const now = result.speaker_map[label];
      store.getState().notify(`${label} is not ${entry.name}${now ? `: now ${now.name}` : ''}`);
    });

  const certainty = entry?.matched ? matchCertainty(entry.similarity, entry.match_threshold) : null;
  // The project's number is an identity, not a count of this recording's voices: say where it was given.
  const heard = firstHeardNote(session.id, entry);
  return (
    <span className="speaker-identity">
      {editing ? (
        <input
          type="text"
          autoFocus
          value={draft}
          maxLength={200}
          aria-label={`Name of ${label}`}
          data-testid="speaker-name-input"
          disabled={busy}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void save();
            if (e.key === 'Escape') {
              setDraft(name);
              setEditing(false);
            }
            e.stopPropagation();
          }}
          onBlur={() => !busy && setEditing(false)}
        />
      ) : (
        <button
          className="link speaker-name"
          data-testid="speaker-name"
          title={entry ? `${name} (${label}): click to rename` : `${label} is not filed under a project speaker yet`}
          disabled={!entry}
          onClick={() => {
            setDraft(name);
            setEditing(true);
          }}
        >
          {name}
        </button>
      )}
      {heard && (
        <span className="hint first-heard" data-testid="speaker-first-heard">
          {heard}
        </span>
      )}
      {certainty && (
        <span className="speaker-match" data-testid="speaker-match" data-similarity={entry!.similarity} data-threshold={entry!.match_threshold} data-level={certainty.level} title={certainty.title}>
          <span className={`match-${certainty.level}`}>{certainty.text}</span>
          <button className="ghost small" disabled={busy} onClick={() => void reject()} data-testid="reject-match">
            Not this person
          </button>
        </span>
      )}
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
