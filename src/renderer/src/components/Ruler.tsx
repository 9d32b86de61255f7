/**
 * The timeline ruler: labels in timecode (or clock time without a timebase) for the visible stretch
 * only, kept in step with the waveform's scroll and zoom. In/out points are drawn as a band.
 */
import { useEffect, useState } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import { useStore } from 'zustand';
import { rulerMarks } from '../lib/ruler-marks';
import { rulerSteps, type Timebase } from '../lib/timecode';
import type { PlayerStore } from '../state/player-store';

interface View {
  scroll: number;
  width: number;
  pxPerSec: number;
}

export function Ruler({
  ws,
  timebase,
  store,
  onSeek,
}: {
  ws: WaveSurfer | null;
  timebase: Timebase | null;
  store: PlayerStore;
  onSeek: (t: number) => void;
}) {
  const [view, setView] = useState<View>({ scroll: 0, width: 0, pxPerSec: 0 });
  const inPoint = useStore(store, (s) => s.inPoint);
  const outPoint = useStore(store, (s) => s.outPoint);
  const duration = useStore(store, (s) => s.duration);

  useEffect(() => {
    if (!ws) return;
    const update = () => {
      const d = ws.getDuration() || duration;
      // clientWidth, not scrollWidth: overlays inside the wrapper can overflow it and skew the scale.
      const total = ws.getWrapper().clientWidth;
      setView({ scroll: ws.getScroll(), width: ws.getWidth(), pxPerSec: d > 0 ? total / d : 0 });
    };
    const subs = ['scroll', 'zoom', 'redraw', 'ready', 'resize'].map((e) => ws.on(e as 'redraw', update));
    update();
    return () => subs.forEach((u) => u());
  }, [ws, duration]);

  const ticks: { x: number; label?: string }[] = [];
  if (view.pxPerSec > 0 && view.width > 0) {
    // A label's text reaches right of its mark: start a label's width early so one cut by the left edge shows.
    const t0 = Math.max(0, (view.scroll - 100) / view.pxPerSec);
    const t1 = Math.min(duration, (view.scroll + view.width) / view.pxPerSec);
    for (const m of rulerMarks(t0, t1, rulerSteps(view.pxPerSec, timebase), timebase)) {
      ticks.push({ x: m.t * view.pxPerSec - view.scroll, label: m.label });
    }
  }
  const px = (t: number) => t * view.pxPerSec - view.scroll;

  return (
    <div
      className="ruler"
      data-testid="ruler"
      onMouseDown={(e) => {
        if (!view.pxPerSec) return;
        const rect = e.currentTarget.getBoundingClientRect();
        onSeek((e.clientX - rect.left + view.scroll) / view.pxPerSec);
      }}
    >
      {inPoint !== null && (
        <div
          className="io"
          data-testid="ruler-io"
          style={{
            left: px(inPoint),
            width: outPoint !== null ? Math.max(2, px(outPoint) - px(inPoint)) : 2,
          }}
        />
      )}
      {inPoint === null && outPoint !== null && (
        <div className="io" style={{ left: px(outPoint), width: 2 }} />
      )}
      {ticks.map((t, i) => (
        <div key={i}>
          <div className={`tick${t.label ? ' major' : ''}`} style={{ left: t.x }} />
          {t.label && (
            <div className="label" data-testid="ruler-label" style={{ left: t.x }}>
              {t.label}
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
