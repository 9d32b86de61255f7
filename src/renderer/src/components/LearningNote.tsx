import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ProjectSpeaker } from '../api/types';
import { learningNote } from '../lib/learning-note';

/** After an edit, the project is read again this often, this many times, to catch the adaptation job's result. */
const POLL_MS = 5000;
const POLLS = 24;

/**
 * The transcript bar's note on what corrections taught the recognizer (docs/transcription.md, "Corrections teach the
 * recognizer"): how much corrected speech of this recording's speakers their adaptation uses. Read from the
 * project's speakers; read again for a while after each edit, since the adaptation runs in the background.
 */
export function LearningNote({ api, projectKey, speakerIds, revision }: { api: Pick<ApiClient, 'getProject'>; projectKey: string; speakerIds: readonly string[]; revision: number | undefined }) {
  const [speakers, setSpeakers] = useState<ProjectSpeaker[]>([]);
  const ids = speakerIds.join(',');
  useEffect(() => {
    const controller = new AbortController();
    let polls = revision === undefined ? 1 : POLLS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      api.getProject(projectKey, controller.signal).then(
        (project) => {
          if (controller.signal.aborted) return;
          setSpeakers(project.speakers);
          if (--polls > 0) timer = setTimeout(read, POLL_MS);
        },
        () => {}, // the note is a hint: a failed read leaves it as it was
      );
    };
    read();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, projectKey, ids, revision]);
  const wanted = new Set(ids.split(','));
  const note = learningNote(
    speakers.filter((s) => wanted.has(s.id)).map((s) => ({ name: s.name || s.label, correctedSeconds: s.adaptation?.corrected_seconds ?? 0 })),
  );
  if (!note) return null;
  return (
    <span className="hint learning-note" data-testid="learning-note" title={`${note}. Corrected lines are what speaker adaptation learns this voice from; typed names also join the project's vocabulary.`}>
      {note}
    </span>
  );
}
