/**
 * One speaker's arc over the recording: valence, arousal and energy per line (analysis/trajectory.ts does
 * the scaling), the playhead, and a point per line that jumps to it when clicked.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { TrajectoryPoint } from '../../../../shared/schemas/analysis';
import {
  arcGapLimit,
  plotTrajectory,
  polyline,
  scaleX,
  seriesValueText,
  splitAtGaps,
  type PlotArea,
  type PlotPoint,
} from '../../analysis/trajectory';
import { rulerMarks } from '../../lib/ruler-marks';
import { rulerSteps, type Timebase } from '../../lib/timecode';
import type { PlayerStore } from '../../state/player-store';

const HEIGHT = 120;
const PADDING = 8;
/** Room under the plot for the time axis's labels. */
const AXIS = 18;

/** The element's width in CSS pixels, following resizes (the chart is drawn at its real size so points stay round). */
function useWidth(fallback: number, drawn: boolean): [React.RefObject<HTMLElement | null>, number] {
  const ref = useRef<HTMLElement | null>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(120, Math.round(el.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [drawn]);
  return [ref, width];
}

function Playhead({ store, duration, area }: { store: PlayerStore; duration: number; area: PlotArea }) {
  const t = useStore(store, (s) => s.currentTime);
  const x = scaleX(t, duration, area);
  return (
    <line
      className="trajectory-playhead"
      data-testid="trajectory-playhead"
      x1={x}
      x2={x}
      y1={0}
      y2={area.height}
    />
  );
}

export function TrajectoryChart(props: {
  speaker: string;
  trajectory: readonly TrajectoryPoint[];
  duration: number;
  player: PlayerStore | null;
  formatTime: (t: number) => string;
  onJump: (point: PlotPoint) => void;
  /** The recording's timebase: the time axis reads in it (round timecode), or in m:ss without one. */
  timebase?: Timebase | null;
}) {
  const { speaker, trajectory, duration, player, formatTime, onJump, timebase = null } = props;
  const [ref, width] = useWidth(640, trajectory.length > 0);
  const area = useMemo(() => ({ width, height: HEIGHT, padding: PADDING }), [width]);
  const series = useMemo(() => plotTrajectory(trajectory, duration, area), [trajectory, duration, area]);
  // One gap limit for the speaker (from all their lines), so every series breaks at the same silences.
  const gapLimit = useMemo(() => arcGapLimit([...trajectory].sort((a, b) => a.t - b.t)), [trajectory]);
  const axis = useMemo(() => {
    const span = area.width - 2 * area.padding;
    if (!(duration > 0) || span <= 0) return [];
    const steps = rulerSteps(span / duration, timebase, timebase ? 110 : 60);
    return rulerMarks(0, duration, steps, timebase).filter((m) => m.label);
  }, [area, duration, timebase]);
  if (trajectory.length === 0) return <div className="hint">No lines listened to yet.</div>;
  return (
    <figure className="trajectory" data-testid="trajectory" data-speaker={speaker} ref={ref}>
      <svg
        width={area.width}
        height={area.height + AXIS}
        viewBox={`0 0 ${area.width} ${area.height + AXIS}`}
        role="group"
        aria-label={`How ${speaker}’s valence, arousal and energy move over the recording`}
      >
        <line
          className="trajectory-axis"
          x1={area.padding}
          x2={area.width - area.padding}
          y1={area.height / 2}
          y2={area.height / 2}
        />
        <g className="trajectory-time-axis" data-testid="trajectory-time-axis">
          <line x1={0} x2={area.width} y1={area.height} y2={area.height} />
          {axis.map((m) => {
            const x = scaleX(m.t, duration, area);
            return (
              <g key={m.t}>
                <line x1={x} x2={x} y1={area.height} y2={area.height + 4} />
                <text
                  x={x}
                  y={area.height + 14}
                  // The first and last labels stay inside the chart.
                  textAnchor={x < 40 ? 'start' : x > area.width - 40 ? 'end' : 'middle'}
                  data-testid="trajectory-time"
                >
                  {m.label}
                </text>
              </g>
            );
          })}
        </g>
        {player && <Playhead store={player} duration={duration} area={area} />}
        {series.map((s) => (
          <g key={s.key} data-series={s.key} style={{ color: s.colour }}>
            {splitAtGaps(s.points, gapLimit).map((run) => (
              <polyline
                key={run[0]!.segmentId}
                data-testid="trajectory-run"
                points={polyline(run)}
                fill="none"
                stroke="currentColor"
                strokeWidth={1.5}
                strokeOpacity={0.8}
              />
            ))}
            {s.points.map((p) => (
              <circle
                key={p.segmentId}
                className="trajectory-point"
                data-testid="trajectory-point"
                data-series={s.key}
                data-segment-id={p.segmentId}
                data-t={p.t}
                cx={p.x}
                cy={p.y}
                r={4}
                fill="currentColor"
                role="button"
                tabIndex={0}
                aria-label={`${s.label} ${seriesValueText(p.value, s.unit)} at ${formatTime(p.start)} (${p.emotion}); go to the line`}
                onClick={() => onJump(p)}
                onKeyDown={(e) => {
                  if (e.key !== 'Enter' && e.key !== ' ') return;
                  e.preventDefault();
                  onJump(p);
                }}
              >
                <title>{`${s.label} ${seriesValueText(p.value, s.unit)} · ${p.emotion} · ${formatTime(p.start)}`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="trajectory-key">
        {series.map((s) => (
          <span key={s.key}>
            <span className="swatch" style={{ background: s.colour }} />
            {s.label}{' '}
            <span className="hint num">
              {seriesValueText(s.domain[0], s.unit)} … {seriesValueText(s.domain[1], s.unit)}
            </span>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
