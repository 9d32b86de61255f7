import { DUB_SHORTCUTS } from '../lib/dub-lines';
import { SHORTCUTS, type EditorAction } from '../lib/shortcuts';
import { Modal } from './Modal';

/** The recording view's keys that work the same in the dub view (one source: lib/shortcuts). */
const SHARED: ReadonlySet<EditorAction> = new Set([
  'play-pause',
  'shuttle-reverse',
  'shuttle-stop',
  'shuttle-forward',
  'frame-back',
  'second-back',
  'mark-in',
  'clear-marks',
  'go-start',
  'zoom-in',
  'show-shortcuts',
]);

/** The dub view's keyboard sheet: the transport keys of the recording view, then the dub's own. */
export function DubShortcutSheet({ onClose }: { onClose: () => void }) {
  const rows = [...SHORTCUTS.filter((s) => SHARED.has(s.action)), ...DUB_SHORTCUTS];
  return (
    <Modal title="Keyboard shortcuts: dub" onClose={onClose} testId="shortcut-sheet">
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
