/**
 * The legend of the marker lanes, which is also their filter: one toggle per kind (its glyph, name and
 * count), and per lane a toggle for all its kinds.
 */
import { useMemo } from 'react';
import { legendEntries } from '../../markers/filters';
import type { Marker } from '../../markers/model';
import { glyphStyle } from '../../markers/shapes';
import './analysis.css';

export function MarkerLegend(props: {
  markers: readonly Marker[];
  hidden: ReadonlySet<string>;
  onToggleKind: (kind: string) => void;
  onToggleLane: (kinds: readonly string[]) => void;
}) {
  const { markers, hidden, onToggleKind, onToggleLane } = props;
  const lanes = useMemo(() => legendEntries(markers), [markers]);
  if (lanes.length === 0) return null;
  return (
    <div className="marker-legend" data-testid="marker-legend" aria-label="Markers: legend and filters">
      {lanes.map((lane) => {
        const kinds = lane.kinds.map((k) => k.kind);
        const allHidden = kinds.every((k) => hidden.has(k));
        return (
          <div className="legend-lane" key={lane.lane} data-lane={lane.lane}>
            <button
              className="legend-lane-name"
              onClick={() => onToggleLane(kinds)}
              aria-pressed={!allHidden}
              title={
                allHidden
                  ? `Show all ${lane.label.toLowerCase()} markers`
                  : `Hide all ${lane.label.toLowerCase()} markers`
              }
              data-testid="marker-lane-filter"
            >
              {lane.label}
            </button>
            {lane.kinds.map((k) => {
              const on = !hidden.has(k.kind);
              return (
                <button
                  key={k.kind}
                  className={`legend-kind${on ? '' : ' off'}`}
                  aria-pressed={on}
                  onClick={() => onToggleKind(k.kind)}
                  title={`${on ? 'Hide' : 'Show'} ${k.label.toLowerCase()} markers`}
                  data-testid="marker-filter"
                  data-kind={k.kind}
                >
                  <span style={glyphStyle(k.shape, k.colour, 10)} aria-hidden="true" />
                  {k.label}
                  <span className="count">{k.count}</span>
                </button>
              );
            })}
          </div>
        );
      })}
    </div>
  );
}
