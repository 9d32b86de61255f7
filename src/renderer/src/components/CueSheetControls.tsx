import { useRef, useState } from 'react';
import { saveFile, type ApiClient } from '../api/client';
import type { CueSheetFormat, CueSheetImportResult } from '../api/cue-sheets';
import { ApiError, messageOf } from '../api/errors';
import { Modal } from './Modal';

type Notify = (message: string, kind?: 'error') => void;

/** The rows a refused import lists (one message each, "Row N (cue C): why"). */
function rowMessages(error: ApiError): string[] {
  return Object.entries(error.fields)
    .filter(([field]) => field.startsWith('file.rows.'))
    .flatMap(([, messages]) => messages);
}

function summary(result: CueSheetImportResult): string {
  const changed = result.applied.length;
  const skipped = result.skipped.length ? `, ${result.skipped.length} row${result.skipped.length === 1 ? '' : 's'} skipped` : '';
  return changed ? `Cue sheet imported: ${changed} cue${changed === 1 ? '' : 's'} changed${skipped}` : `Cue sheet imported: nothing changed${skipped}`;
}

/**
 * The dub's cue sheet out (CSV, xlsx) and in. An import with rows that cannot be applied changes nothing:
 * the rows are listed with why, and the valid ones can then be applied on their own.
 */
export function CueSheetControls({ api, sessionId, dubId, disabled, notify, onImported }: { api: ApiClient; sessionId: string; dubId: string; disabled: boolean; notify: Notify; onImported: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<{ file: File; rows: string[] } | null>(null);

  async function download(format: CueSheetFormat) {
    setBusy(true);
    try {
      const file = await api.exportCueSheet(sessionId, dubId, format);
      saveFile(file);
      notify(`Exported ${file.fileName}`);
    } catch (error) {
      notify(`Export failed: ${messageOf(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  }

  async function upload(file: File, applyValid: boolean) {
    setBusy(true);
    try {
      const result = await api.importCueSheet(sessionId, dubId, file, applyValid);
      setRefused(null);
      notify(summary(result));
      onImported();
    } catch (error) {
      const rows = error instanceof ApiError && error.status === 422 ? rowMessages(error) : [];
      if (rows.length) setRefused({ file, rows });
      else notify(`Import failed: ${messageOf(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <select
        value=""
        disabled={disabled || busy}
        aria-label="Cue sheet: export or import"
        className="dub-export"
        data-testid="cue-sheet"
        title="Export the cue sheet, or update lines' text, timing, status and notes from an edited one (CSV or xlsx)"
        onChange={(e) => {
          const choice = e.target.value;
          if (choice === 'import') input.current?.click();
          else if (choice) void download(choice as CueSheetFormat);
        }}
      >
        <option value="">{busy ? 'Cue sheet…' : 'Cue sheet'}</option>
        <option value="csv">Export CSV</option>
        <option value="xlsx">Export xlsx</option>
        <option value="import">Import…</option>
      </select>
      <input
        ref={input}
        type="file"
        hidden
        accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        data-testid="cue-sheet-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void upload(file, false);
        }}
      />
      {refused && (
        <Modal title="Nothing was changed" onClose={() => setRefused(null)} testId="cue-sheet-refused">
          <p>
            {refused.rows.length} row{refused.rows.length === 1 ? '' : 's'} of {refused.file.name} cannot be applied:
          </p>
          <ul className="cue-sheet-problems">
            {refused.rows.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
          <div className="actions">
            <button onClick={() => setRefused(null)}>Cancel</button>
            <button className="primary" disabled={busy} onClick={() => void upload(refused.file, true)} data-testid="cue-sheet-apply-valid">
              Apply the other rows
            </button>
          </div>
        </Modal>
      )}
    </>
  );
}
