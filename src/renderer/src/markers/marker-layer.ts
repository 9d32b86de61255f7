/**
 * The marker lanes as a wavesurfer plugin: bands under the waveform, inside its scrolling wrapper, so they
 * scroll and zoom with it and tear down with it. Lanes come in a fixed order (model.ts) and are sized from
 * all markers, so hiding kinds with the legend's filters never moves the others.
 * Usage: `const layer = ws.registerPlugin(MarkerLayer.create({ onSelect, onHover }))`, then
 * `layer.setMarkers([...])` and `layer.setHidden(new Set(['event.music']))`.
 */
import WaveSurfer from 'wavesurfer.js';
import type { BasePluginEvents } from 'wavesurfer.js/dist/base-plugin.js';
import { kindStyle } from './kinds';
import { layoutLanes, type PlacedMarker } from './layout';
import { laneLabel, type Marker } from './model';
import { glyphStyle } from './shapes';

export interface MarkerLayerOptions {
  onSelect?: (marker: Marker) => void;
  /** The marker under the pointer (or focused), with its box on screen; null when it leaves. */
  onHover?: (marker: Marker | null, box: DOMRect | null) => void;
  /** Height of one row of a lane in pixels. */
  rowHeight?: number;
}

export type MarkerLayerEvents = BasePluginEvents & { select: [marker: Marker] };

export interface MarkerLayerApi {
  setMarkers(markers: readonly Marker[]): void;
  /** Kinds not to draw (their room in the lanes is kept). */
  setHidden(kinds: ReadonlySet<string>): void;
  getMarkers(): readonly Marker[];
  clear(): void;
}

const LANE_PADDING = 3;

export const MarkerLayer = WaveSurfer.definePlugin<
  MarkerLayerOptions | undefined,
  MarkerLayerEvents,
  MarkerLayerApi
>('MarkerLayer', (ctx, options) => {
  const rowHeight = options?.rowHeight ?? 16;
  let markers: readonly Marker[] = [];
  let hidden: ReadonlySet<string> = new Set();
  // In the wrapper's flow, after the canvases: the lanes add height under the waveform and share its scroll.
  const root = document.createElement('div');
  root.setAttribute('part', 'marker-layer');
  root.dataset.testid = 'marker-layer';
  Object.assign(root.style, { position: 'relative', zIndex: '6', pointerEvents: 'none' });
  ctx.wavesurfer.getWrapper().appendChild(root);
  ctx.scope.add(() => root.remove());

  function select(marker: Marker): void {
    ctx.emit('select', marker);
    options?.onSelect?.(marker);
  }

  function markerElement(placed: PlacedMarker): HTMLElement {
    const { marker } = placed;
    const style = kindStyle(marker.kind);
    const glyphSize = rowHeight - 4;
    const el = document.createElement('div');
    el.setAttribute('part', `marker marker-${marker.lane}`);
    el.dataset.testid = 'marker';
    el.dataset.kind = marker.kind;
    el.dataset.lane = marker.lane;
    el.dataset.start = String(marker.start);
    el.dataset.end = String(marker.end ?? marker.start);
    if (marker.at !== undefined) el.dataset.at = String(marker.at);
    el.setAttribute('role', 'button');
    el.tabIndex = 0;
    el.setAttribute('aria-label', [marker.label, ...marker.detail].join('. '));
    const alpha = 0.3 + 0.45 * Math.min(1, Math.max(0, marker.severity ?? 0.5));
    Object.assign(el.style, {
      position: 'absolute',
      left: `${placed.leftPct}%`,
      top: `${LANE_PADDING + placed.lane * rowHeight + 1}px`,
      height: `${glyphSize}px`,
      display: 'flex',
      alignItems: 'center',
      pointerEvents: 'auto',
      cursor: 'pointer',
      borderRadius: '3px',
      outlineOffset: '1px',
    });
    if (placed.point) {
      el.style.transform = 'translateX(-50%)';
    } else {
      Object.assign(el.style, {
        width: `max(${glyphSize}px, ${placed.widthPct}%)`,
        background: `color-mix(in srgb, ${style.colour} ${Math.round(alpha * 100)}%, transparent)`,
        boxShadow: `inset 0 0 0 1px color-mix(in srgb, ${style.colour} 70%, transparent)`,
      });
    }
    const glyph = document.createElement('div');
    Object.assign(glyph.style, glyphStyle(style.shape, style.colour, glyphSize));
    el.appendChild(glyph);

    el.addEventListener('click', (e) => {
      e.stopPropagation();
      select(marker);
    });
    // Keep wavesurfer's drag-to-seek from starting on a marker.
    el.addEventListener('pointerdown', (e) => e.stopPropagation());
    el.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      e.stopPropagation();
      select(marker);
    });
    const enter = () => options?.onHover?.(marker, el.getBoundingClientRect());
    const leave = () => options?.onHover?.(null, null);
    el.addEventListener('mouseenter', enter);
    el.addEventListener('focus', enter);
    el.addEventListener('mouseleave', leave);
    el.addEventListener('blur', leave);
    return el;
  }

  function render(): void {
    options?.onHover?.(null, null);
    root.replaceChildren();
    const duration = ctx.wavesurfer.getDuration();
    for (const lane of layoutLanes(markers, duration)) {
      const band = document.createElement('div');
      band.dataset.testid = 'marker-lane';
      band.dataset.lane = lane.lane;
      Object.assign(band.style, {
        position: 'relative',
        height: `${lane.rows * rowHeight + 2 * LANE_PADDING}px`,
        borderTop: '1px solid rgba(255, 255, 255, 0.07)',
        background: 'rgba(255, 255, 255, 0.025)',
      });
      // The lane's name stays at the left edge of the view while the waveform scrolls.
      const name = document.createElement('div');
      Object.assign(name.style, {
        position: 'sticky',
        left: '0',
        width: 'max-content',
        height: '0',
        overflow: 'visible',
        font: '10px/1 system-ui, sans-serif',
        color: 'rgba(200, 208, 220, 0.75)',
        pointerEvents: 'none',
        zIndex: '2',
      });
      const text = document.createElement('span');
      text.textContent = laneLabel(lane.lane);
      Object.assign(text.style, {
        display: 'inline-block',
        padding: '1px 5px',
        marginTop: `${LANE_PADDING}px`,
        background: 'rgba(12, 15, 19, 0.72)',
        borderRadius: '0 3px 3px 0',
      });
      name.appendChild(text);
      band.appendChild(name);
      for (const placed of lane.placed) {
        if (!hidden.has(placed.marker.kind)) band.appendChild(markerElement(placed));
      }
      root.appendChild(band);
    }
  }

  // Duration can arrive after registration (peaks loaded later), so render again when it does.
  ctx.scope.add(ctx.wavesurfer.on('ready', render));
  ctx.scope.add(
    ctx.wavesurfer.on('redraw', () => root.childElementCount === 0 && markers.length && render()),
  );

  return {
    setMarkers(next) {
      markers = next.slice();
      render();
    },
    setHidden(kinds) {
      hidden = new Set(kinds);
      render();
    },
    getMarkers: () => markers,
    clear() {
      markers = [];
      render();
    },
  };
});
