import { useState } from 'react';
import { saveFile } from '../api/client';
import { useApp } from '../app-context';
import { messageOf } from '../api/errors';

/**
 * Downloads a revision as stems (a zip of the mix, the background and one WAV per speaker), for the
 * revision history's row of that revision.
 */
export function StemsDownload({ sessionId, dubId, revision }: { sessionId: string; dubId: string; revision: number }) {
  const { api, store } = useApp();
  const [busy, setBusy] = useState(false);
  async function download() {
    setBusy(true);
    const notify = store.getState().notify;
    try {
      const file = await api.downloadDubStems(sessionId, dubId, revision);
      saveFile(file);
      notify(`Downloaded ${file.fileName}`);
    } catch (error) {
      notify(`Stems of revision ${revision} failed: ${messageOf(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  }
  return (
    <button className="ghost" onClick={() => void download()} disabled={busy} data-testid="download-stems" title="The mix, the background and one WAV per speaker, in one zip">
      {busy ? 'Preparing stems…' : 'Stems'}
    </button>
  );
}
