/**
 * The speaker panel: for each speaker, their arc over the recording (click a point to go to that line),
 * their profile numbers, emotions, delivery labels, audience reactions and the written summary.
 */
import type { Intelligence } from '../../../../shared/schemas/analysis';
import { countsText, profileRows, sharesText } from '../../analysis/profile';
import type { PlotPoint } from '../../analysis/trajectory';
import { speakerColor } from '../../lib/format';
import type { PlayerStore } from '../../state/player-store';
import { TrajectoryChart } from './TrajectoryChart';
import type { Timebase } from '../../lib/timecode';

export function SpeakerInsights(props: {
  intel: Intelligence;
  player: PlayerStore | null;
  speakerName: (label: string) => string;
  formatTime: (t: number) => string;
  /** Go to a line: seek to its start and open it. */
  onLine: (segmentId: number, start: number) => void;
  /** The recording's timebase, for the arcs' time axis. */
  timebase?: Timebase | null;
}) {
  const { intel, player, speakerName, formatTime, onLine, timebase } = props;
  const labels = Object.keys(intel.speakers).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  if (labels.length === 0)
    return (
      <div className="hint" data-testid="speakers-pending">
        Speaker profiles appear once the analysis has listened to the lines.
      </div>
    );
  const jump = (p: PlotPoint) => onLine(p.segmentId, p.start);
  return (
    <div className="speaker-insights" data-testid="speaker-insights">
      {labels.map((label) => {
        const p = intel.speakers[label]!;
        return (
          <section key={label} className="speaker-card" data-testid="speaker-card" data-speaker={label}>
            <h3>
              <span className="swatch" style={{ background: speakerColor(label) }} />
              {speakerName(label)}
              {speakerName(label) !== label && <span className="hint"> · {label}</span>}
            </h3>
            {p.summary && (
              <p className="speaker-summary" data-testid="speaker-summary">
                {p.summary}
              </p>
            )}
            <TrajectoryChart
              speaker={label}
              trajectory={p.trajectory}
              duration={intel.duration}
              player={player}
              formatTime={formatTime}
              onJump={jump}
              timebase={timebase}
            />
            <dl className="kv profile-values" data-testid="profile-values">
              {profileRows(p).map((r) => (
                <div key={r.key} data-key={r.key} data-raw={String(r.raw)}>
                  <dt>{r.label}</dt>
                  <dd className="num">{r.text}</dd>
                </div>
              ))}
            </dl>
            <dl className="kv profile-lists">
              <dt>Emotions</dt>
              <dd data-testid="profile-emotions">{sharesText(p.emotions)}</dd>
              <dt>Delivery</dt>
              <dd data-testid="profile-delivery">{countsText(p.delivery_labels)}</dd>
              <dt>Reactions</dt>
              <dd>{countsText(p.reactions)}</dd>
            </dl>
          </section>
        );
      })}
    </div>
  );
}
