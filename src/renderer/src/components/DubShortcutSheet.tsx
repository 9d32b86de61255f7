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

/** What the dub view does with no key: where to find it. */
export const DUB_PLACES: ReadonlyArray<{ where: string; description: string }> = [
  { where: 'Takes (a selected line) → Record', description: 'Record the line from the microphone: a count-in (Pre-roll), the original line as a guide (headphones), then the take appears beside the rendered ones for A/B' },
  { where: 'Takes → Use this take', description: 'Choose a take (rendered or recorded): a new revision changes only that line' },
  { where: 'Toolbar → Cue sheet', description: 'Export the dialogue list as CSV or xlsx, or import one: every row that cannot apply is listed, nothing changes unless you apply the others' },
  { where: 'Revisions → Stems', description: 'Download a revision as one WAV per speaker, the background and the mix, in one zip' },
  { where: "Voices → Follow the actor's timing and pitch", description: "Revoiced lines and their takes put each word where the original's is and move the pitch contour onto the original's" },
  { where: "Line → Dub's guide / Follow actor", description: "One line's own choice: follow the original actor even when the dub does not (Dub's guide: the switch above decides)" },
];

/** The dub view's keyboard sheet: the transport keys of the recording view, then the dub's own, then where its other controls are. */
export function DubShortcutSheet({ onClose }: { onClose: () => void }) {
  return (
    <ShortcutSheet
      title="Keyboard shortcuts: dub"
      rows={[...SHORTCUTS.filter((s) => SHARED.has(s.action)), ...DUB_SHORTCUTS]}
      places={DUB_PLACES}
      onClose={onClose}
    />
  );
}
