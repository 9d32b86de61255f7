import { SHORTCUTS } from '../lib/shortcuts';
import { Modal } from './Modal';

export function ShortcutSheet({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} testId="shortcut-sheet">
      <table className="shortcuts">
        <tbody>
          {SHORTCUTS.map((s) => (
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
