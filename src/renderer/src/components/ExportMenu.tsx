import { useEffect, useRef, useState } from 'react';
import { saveFile } from '../api/client';
import { messageOf } from '../api/errors';
import { EXPORT_FORMATS, type ExportFormat } from '../api/types';
import { useApp } from '../app-context';

export function ExportMenu({ sessionId }: { sessionId: string }) {
  const { api, store } = useApp();
  const [open, setOpen] = useState(false);
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
      const file = await api.exportFile(sessionId, format);
      saveFile(file);
      store.getState().notify(`Exported ${file.fileName}`);
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
