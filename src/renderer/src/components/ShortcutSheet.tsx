import { SHORTCUTS } from '../lib/shortcuts';
import { Modal } from './Modal';

/** A keyboard sheet: the recording view's keys by default, or the rows a view gives (the dub view's). */
export function ShortcutSheet({
  onClose,
  title = 'Keyboard shortcuts',
  rows = SHORTCUTS,
  places = [],
}: {
  onClose: () => void;
  title?: string;
  rows?: ReadonlyArray<{ keys: string; description: string }>;
  /** Where a view's controls are, for what has no key (the dub view's recording, cue sheets, stems). */
  places?: ReadonlyArray<{ where: string; description: string }>;
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
      {places.length > 0 && (
        <table className="shortcuts" data-testid="shortcut-sheet-places">
          <tbody>
            {places.map((p) => (
              <tr key={p.where}>
                <td>{p.where}</td>
                <td>{p.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <button onClick={onClose}>Close</button>
      </div>
    </Modal>
  );
}
