/**
 * The editor's keyboard map: keydown → action. Pure so the map can be tested and listed on the
 * shortcut sheet from one source.
 */
export type EditorAction =
  | 'play-pause'
  | 'shuttle-reverse'
  | 'shuttle-stop'
  | 'shuttle-forward'
  | 'frame-back'
  | 'frame-forward'
  | 'second-back'
  | 'second-forward'
  | 'mark-in'
  | 'mark-out'
  | 'clear-marks'
  | 'go-in'
  | 'go-out'
  | 'play-range'
  | 'loop-range'
  | 'next-marker'
  | 'prev-marker'
  | 'next-marker-kind'
  | 'prev-marker-kind'
  | 'add-marker'
  | 'go-start'
  | 'go-end'
  | 'zoom-in'
  | 'zoom-out'
  | 'zoom-fit'
  | 'find'
  | 'edit-word'
  | 'edit-line'
  | 'next-doubtful'
  | 'prev-doubtful'
  | 'undo'
  | 'redo'
  | 'show-shortcuts'
  | 'close';

export interface KeyLike {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

export interface ShortcutDoc {
  keys: string;
  action: EditorAction;
  description: string;
}

export const SHORTCUTS: ShortcutDoc[] = [
  { keys: 'Space', action: 'play-pause', description: 'Play / pause' },
  {
    keys: 'J',
    action: 'shuttle-reverse',
    description: 'Play in reverse; slower when playing forward; faster on repeat',
  },
  { keys: 'K', action: 'shuttle-stop', description: 'Stop' },
  { keys: 'L', action: 'shuttle-forward', description: 'Play forward; repeated L doubles the speed' },
  {
    keys: '← / →',
    action: 'frame-back',
    description: 'One frame back / forward (timebase; 25 fps when none)',
  },
  { keys: 'Shift+← / Shift+→', action: 'second-back', description: 'One second back / forward' },
  { keys: 'I / O', action: 'mark-in', description: 'Set in / out point at the playhead' },
  { keys: 'Shift+I / Shift+O', action: 'go-in', description: 'Go to the in / out point' },
  { keys: 'P', action: 'play-range', description: 'Play from in to out (an in point alone: to the end)' },
  { keys: 'Shift+P', action: 'loop-range', description: 'Play from in to out in a loop until stopped (K, Space)' },
  { keys: 'Shift+X', action: 'clear-marks', description: 'Clear in and out points' },
  {
    keys: '] / [',
    action: 'next-marker',
    description: 'Next / previous marker on the timeline (the kinds the legend shows)',
  },
  {
    keys: 'Shift+] / Shift+[',
    action: 'next-marker-kind',
    description: 'Next / previous marker of the same kind as the last one reached or clicked',
  },
  { keys: 'M', action: 'add-marker', description: 'Add a marker of your own at the playhead (then type its name)' },
  { keys: 'Home / End', action: 'go-start', description: 'Go to start / end' },
  { keys: '+ / − / 0', action: 'zoom-in', description: 'Zoom in / out / fit the whole recording' },
  { keys: 'Ctrl+F or /', action: 'find', description: 'Search the transcript' },
  {
    keys: 'Enter / F2',
    action: 'edit-word',
    description: 'Correct the word picked by Tab (Enter), or the whole current line (F2); double-click a word to correct it',
  },
  {
    keys: 'Alt+J / Alt+K / Alt+L',
    action: 'edit-line',
    description: 'While correcting (the line loops): shuttle reverse / stop / forward; Enter saves, Esc puts back',
  },
  { keys: 'Tab / Shift+Tab', action: 'next-doubtful', description: 'Next / previous doubtful word (confidence under 50%)' },
  { keys: 'Ctrl+Z / Ctrl+Shift+Z', action: 'undo', description: 'Undo / redo the last transcript edit (Cmd on a Mac; Ctrl+Y redoes too)' },
  { keys: '?', action: 'show-shortcuts', description: 'Show this sheet' },
  { keys: 'Esc', action: 'close', description: 'Close dialogs and menus' },
];

/** Action for a keydown, or null when the key is not an editor shortcut. */
export function actionForKey(e: KeyLike): EditorAction | null {
  const mod = e.ctrlKey || e.metaKey;
  if (mod) {
    const k = e.key.toLowerCase();
    if (k === 'f' && !e.shiftKey) return 'find';
    if (k === 'z') return e.shiftKey ? 'redo' : 'undo';
    if (k === 'y' && !e.shiftKey) return 'redo';
    return null;
  }
  if (e.altKey) return null;
  switch (e.key) {
    case ' ':
      return 'play-pause';
    case 'j':
    case 'J':
      return 'shuttle-reverse';
    case 'k':
    case 'K':
      return 'shuttle-stop';
    case 'l':
    case 'L':
      return 'shuttle-forward';
    case 'ArrowLeft':
      return e.shiftKey ? 'second-back' : 'frame-back';
    case 'ArrowRight':
      return e.shiftKey ? 'second-forward' : 'frame-forward';
    case 'i':
    case 'I':
      return e.shiftKey ? 'go-in' : 'mark-in';
    case 'o':
    case 'O':
      return e.shiftKey ? 'go-out' : 'mark-out';
    case 'p':
    case 'P':
      return e.shiftKey ? 'loop-range' : 'play-range';
    case 'm':
    case 'M':
      return e.shiftKey ? null : 'add-marker';
    case ']':
      return 'next-marker';
    case '[':
      return 'prev-marker';
    // Shift+] and Shift+[ type braces on most layouts.
    case '}':
      return 'next-marker-kind';
    case '{':
      return 'prev-marker-kind';
    case 'X':
      return e.shiftKey ? 'clear-marks' : null;
    case 'Home':
      return 'go-start';
    case 'End':
      return 'go-end';
    case '+':
    case '=':
      return 'zoom-in';
    case '-':
    case '_':
      return 'zoom-out';
    case '0':
      return 'zoom-fit';
    case '/':
      return 'find';
    case '?':
      return 'show-shortcuts';
    case 'Enter':
      return e.shiftKey ? null : 'edit-word';
    case 'F2':
      return 'edit-line';
    case 'Tab':
      return e.shiftKey ? 'prev-doubtful' : 'next-doubtful';
    case 'Escape':
      return 'close';
    default:
      return null;
  }
}

interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
  type?: string;
  disabled?: boolean;
}

const TYPING_INPUT_TYPES = new Set(['text', 'search', 'email', 'number', 'password', 'url', 'tel', '']);

/** True when the key goes to a text field, where shortcuts must not fire. */
export function isTypingTarget(target: TargetLike | null | undefined): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  // A field disabled while it saves takes no typing: Ctrl+Z there is the page's undo (it waits for the save).
  if (target.disabled) return false;
  const tag = target.tagName?.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return TYPING_INPUT_TYPES.has((target.type ?? '').toLowerCase());
  return false;
}
