import { useEffect, useRef, useState } from 'react';
import type { ShuttleKey } from '../lib/shuttle';

/**
 * The box a word or a line is corrected in, in place in the transcript. Enter saves, Escape puts the
 * words back; Alt+J/K/L drive the shuttle (the plain letters type), the line looping meanwhile.
 */
export function InlineEdit({
  initial,
  multiline,
  busy,
  error,
  onSave,
  onCancel,
  onShuttle,
}: {
  initial: string;
  multiline: boolean;
  busy: boolean;
  error: string | null;
  onSave: (text: string) => void;
  onCancel: () => void;
  onShuttle: (key: ShuttleKey) => void;
}) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      if (!busy) onSave(value);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.altKey && !e.ctrlKey && !e.metaKey && /^Key[JKL]$/.test(e.code)) {
      e.preventDefault();
      onShuttle(e.code.slice(3).toLowerCase() as ShuttleKey);
    }
    // Clicks and keys inside the box are the box's: the row must not select or seek.
    e.stopPropagation();
  };
  const common = {
    value,
    disabled: busy,
    'aria-label': multiline ? 'Correct this line' : 'Correct this word',
    'data-testid': 'correction-input',
    onChange: (e: React.ChangeEvent<HTMLTextAreaElement | HTMLInputElement>) => setValue(e.target.value),
    onKeyDown,
    onClick: (e: React.MouseEvent) => e.stopPropagation(),
    onDoubleClick: (e: React.MouseEvent) => e.stopPropagation(),
  };
  return (
    <span className={`inline-edit${multiline ? ' line' : ''}`} data-testid="correction">
      {multiline ? (
        <textarea ref={ref} rows={Math.max(2, Math.ceil(value.length / 70))} {...common} />
      ) : (
        <input ref={ref} type="text" size={Math.max(4, value.length + 2)} {...common} />
      )}
      <span className="hint">
        {busy ? 'Saving and aligning…' : 'Enter saves · Esc puts back · Alt+J/K/L shuttle'}
      </span>
      {error && (
        <span className="form-error" role="alert" data-testid="correction-error">
          {error}
        </span>
      )}
    </span>
  );
}
