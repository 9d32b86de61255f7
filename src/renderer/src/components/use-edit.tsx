import { useState } from 'react';
import { messageOf } from '../api/errors';
import type { TranscriptEdit } from '../api/transcript-edits';

/** Runs one transcript edit at a time, keeping its error to show; `after` runs once it succeeded. */
export function useEdit(onEdited: (edit: TranscriptEdit) => void, after?: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (edit: () => Promise<TranscriptEdit>) => {
    setBusy(true);
    setError(null);
    try {
      onEdited(await edit());
      after?.();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const errorLine = error && (
    <div className="form-error" role="alert">
      {error}
    </div>
  );
  return { busy, run, errorLine };
}
