import { SHORTCUTS } from '../lib/shortcuts';
import { Modal } from './Modal';

/** A keyboard sheet: the recording view's keys by default, or the rows a view gives (the dub view's). */
export function ShortcutSheet({
  onClose,
  title = 'Keyboard shortcuts',
  rows = SHORTCUTS,
}: {
  onClose: () => void;
  title?: string;
  rows?: ReadonlyArray<{ keys: string; description: string }>;
}) {
  return (
    <Modal title={title} onClose={onClose} testId="shortcut-sheet">
      <table className="shortcuts">
        <tbody>
          {rows.map((s) => (
            <tr key={s.keys}>
              <td>
                <kbd>{s.keys}</kbd>
              </td>
              <td>{s.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">Shortcuts do not fire while you type in a text field.</p>
      <div className="actions">
        <button onClick={onClose}>Close</button>
      </div>
    </Modal>
  );
}
