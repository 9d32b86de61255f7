import type { Transport } from '../player/transport';

/** The waveform's −/Fit/+ (keys − 0 +, Ctrl/Cmd + wheel over the waveform), shared by every view with one. */
export function ZoomControls({ transport }: { transport: Transport | null }) {
  return (
    <span className="zoom-controls" role="group" aria-label="Zoom">
      <button onClick={() => transport?.zoomOut()} aria-label="Zoom out" title="Zoom out (−)" disabled={!transport}>
        −
      </button>
      <button onClick={() => transport?.setZoom(0)} title="Fit (0)" disabled={!transport}>
        Fit
      </button>
      <button onClick={() => transport?.zoomIn()} aria-label="Zoom in" title="Zoom in (+)" disabled={!transport}>
        +
      </button>
    </span>
  );
}
