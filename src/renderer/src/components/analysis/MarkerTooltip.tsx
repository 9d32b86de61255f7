/** The hover card of a timeline marker: what it is, and the evidence and confidence behind it. */
import { kindStyle } from '../../markers/kinds';
import type { Marker } from '../../markers/model';
import { glyphStyle } from '../../markers/shapes';
import './analysis.css';

export function MarkerTooltip({ marker, left, top }: { marker: Marker; left: number; top: number }) {
  const style = kindStyle(marker.kind);
  return (
    <div
      className="marker-tip"
      style={{ left, top }}
      role="tooltip"
      data-testid="marker-tooltip"
      data-kind={marker.kind}
    >
      <div className="marker-tip-title">
        <span style={glyphStyle(style.shape, style.colour, 10)} aria-hidden="true" />
        {marker.label}
      </div>
      {marker.detail.map((line, i) => (
        <div key={i}>{line}</div>
      ))}
      <div className="hint">Click to select its span (in/out)</div>
    </div>
  );
}
