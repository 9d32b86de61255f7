import { useEffect, useState } from 'react';
import { ApiError, messageOf } from '../api/errors';
import { useApp } from '../app-context';

/** One term per line (commas also separate); blank lines are ignored. */
export function parseTerms(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * The project's vocabulary: names and terms every recording in the project is transcribed with. The
 * service validates each term; its message is shown as it is.
 */
export function VocabularyEditor({ projectKey }: { projectKey: string }) {
  const { api, store } = useApp();
  const [text, setText] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    api.getVocabulary(projectKey, controller.signal).then(
      (terms) => {
        setText(terms.join('\n'));
        setSaved(terms.join('\n'));
      },
      (err: unknown) => {
        if ((err as Error).name !== 'AbortError') setError(messageOf(err));
      },
    );
    return () => controller.abort();
  }, [api, projectKey]);

  async function save() {
    setBusy(true);
    setError(null);
    try {
      const terms = await api.setVocabulary(projectKey, parseTerms(text));
      setText(terms.join('\n'));
      setSaved(terms.join('\n'));
      store.getState().notify(`Vocabulary saved (${terms.length} ${terms.length === 1 ? 'term' : 'terms'})`);
    } catch (err) {
      setError(err instanceof ApiError && Object.keys(err.fields).length ? Object.values(err.fields).flat().join('; ') : messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label="Vocabulary" data-testid="vocabulary">
      <h2>Vocabulary</h2>
      <p className="hint">
        Names and terms the recordings use, one per line. New recordings are transcribed expecting them and
        spelled as written here.
      </p>
      <textarea
        aria-label="Vocabulary terms"
        rows={4}
        style={{ width: '100%', maxWidth: 480 }}
        value={text}
        disabled={saved === null}
        onChange={(e) => setText(e.target.value)}
      />
      <div>
        <button className="primary" onClick={save} disabled={busy || saved === null || text === saved}>
          {busy ? 'Saving…' : 'Save vocabulary'}
        </button>
      </div>
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}
