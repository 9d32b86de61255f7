import { useEffect, useRef, useState } from 'react';
import { saveFile } from '../api/client';
import { messageOf } from '../api/errors';
import { EXPORT_FORMATS, type ExportFormat } from '../api/types';
import { useApp } from '../app-context';
import type { TimeRange } from '../lib/in-out';

/**
 * The recording's exports. With in/out points marked, the menu offers the marked part only: the service
 * cuts the lines, markers and moments to it (`start`/`end` on the export route). Unticked until chosen: points
 * set to loop a passage must not quietly turn the next subtitle or EDL delivery into a fragment.
 */
export function ExportMenu({
  sessionId,
  range = null,
  formatTime = (t) => `${t.toFixed(2)} s`,
}: {
  sessionId: string;
  range?: TimeRange | null;
  formatTime?: (t: number) => string;
}) {
  const { api, store } = useApp();
  const [open, setOpen] = useState(false);
  const [onlyRange, setOnlyRange] = useState(false);
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !ref.current?.contains(e.target as Node))
        setOpen(false);
    };
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', close);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', close);
    };
  }, [open]);

  async function run(format: ExportFormat) {
    setBusy(format);
    setOpen(false);
    try {
      const part = range && onlyRange ? range : undefined;
      const file = await api.exportFile(sessionId, format, part);
      saveFile(file);
      store.getState().notify(
        part ? `Exported ${file.fileName} (${formatTime(part.start)}–${formatTime(part.end)})` : `Exported ${file.fileName}`,
      );
    } catch (error) {
      store.getState().notify(`Export failed: ${messageOf(error)}`, 'error');
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="menu" ref={ref}>
      <button
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        disabled={busy !== null}
      >
        {busy ? `Exporting ${EXPORT_FORMATS.find((f) => f.format === busy)?.label ?? busy}…` : 'Export ▾'}
      </button>
      {open && (
        <div className="menu-list" role="menu">
          {range && (
            <label className="menu-check" data-testid="export-range">
              <input type="checkbox" checked={onlyRange} onChange={(e) => setOnlyRange(e.target.checked)} />
              In → out only ({formatTime(range.start)}–{formatTime(range.end)})
            </label>
          )}
          {EXPORT_FORMATS.map(({ format, label }) => (
            <button key={format} role="menuitem" data-format={format} onClick={() => void run(format)}>
              {label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
