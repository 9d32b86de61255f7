import type { EditorAction } from '../lib/shortcuts';
import type { Transport } from './transport';

/** The keys that drive the transport the same way in every view with a waveform (recording and dub). */
export function transportActions(transport: Transport): Partial<Record<EditorAction, () => void>> {
  return {
    'play-pause': () => transport.playPause(),
    'shuttle-reverse': () => transport.shuttle('j'),
    'shuttle-stop': () => transport.shuttle('k'),
    'shuttle-forward': () => transport.shuttle('l'),
    'frame-back': () => transport.stepFrames(-1),
    'frame-forward': () => transport.stepFrames(1),
    'second-back': () => transport.stepSeconds(-1),
    'second-forward': () => transport.stepSeconds(1),
    'mark-in': () => transport.markIn(),
    'mark-out': () => transport.markOut(),
    'clear-marks': () => transport.clearMarks(),
    'go-start': () => transport.seek(0),
    'go-end': () => transport.seek(transport.duration),
    'zoom-in': () => transport.zoomIn(),
    'zoom-out': () => transport.zoomOut(),
    'zoom-fit': () => transport.setZoom(0),
  };
}
