import { DUB_SHORTCUTS } from '../lib/dub-lines';
import { SHORTCUTS, type EditorAction } from '../lib/shortcuts';
import { ShortcutSheet } from './ShortcutSheet';

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
  return <ShortcutSheet title="Keyboard shortcuts: dub" rows={[...SHORTCUTS.filter((s) => SHARED.has(s.action)), ...DUB_SHORTCUTS]} onClose={onClose} />;
}
