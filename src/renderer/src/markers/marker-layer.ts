/**
 * The marker layer as a wavesurfer plugin: it draws markers over the waveform (scrolling and zooming
 * with it because it lives in the waveform's wrapper), and tears itself down with the waveform.
 * Usage: `const layer = ws.registerPlugin(MarkerLayer.create({ onSelect }))`, then `layer.setMarkers([...])`.
 */
import WaveSurfer from 'wavesurfer.js';
import type { BasePluginEvents } from 'wavesurfer.js/dist/base-plugin.js';
import { layoutMarkers } from './layout';
import type { Marker, MarkerKind } from './model';

export interface MarkerLayerOptions {
  onSelect?: (marker: Marker) => void;
  /** Height of one lane in pixels. */
  laneHeight?: number;
}

export type MarkerLayerEvents = BasePluginEvents & { select: [marker: Marker] };

export interface MarkerLayerApi {
  setMarkers(markers: readonly Marker[]): void;
  getMarkers(): readonly Marker[];
  clear(): void;
}

const KIND_COLOURS: Record<MarkerKind, string> = {
  delivery: '#f5a524',
  moment: '#2fbf71',
  event: '#a371f7',
};

export const MarkerLayer = WaveSurfer.definePlugin<
  MarkerLayerOptions | undefined,
  MarkerLayerEvents,
  MarkerLayerApi
>('MarkerLayer', (ctx, options) => {
  const laneHeight = options?.laneHeight ?? 14;
  let markers: readonly Marker[] = [];
  const root = document.createElement('div');
  root.setAttribute('part', 'marker-layer');
  root.dataset.testid = 'marker-layer';
  Object.assign(root.style, {
    position: 'absolute',
    inset: '0',
    pointerEvents: 'none',
    zIndex: '6',
  });
  ctx.wavesurfer.getWrapper().appendChild(root);
  ctx.scope.add(() => root.remove());

  function render(): void {
    root.replaceChildren();
    const duration = ctx.wavesurfer.getDuration();
    for (const placed of layoutMarkers(markers, duration)) {
      const el = document.createElement('div');
      const { marker } = placed;
      const colour = KIND_COLOURS[marker.kind];
      el.title = marker.label;
      el.setAttribute('part', `marker marker-${marker.kind}`);
      Object.assign(el.style, {
        position: 'absolute',
        left: `${placed.leftPct}%`,
        width: placed.point ? '2px' : `${placed.widthPct}%`,
        top: `${placed.lane * laneHeight}px`,
        height: placed.point ? '100%' : `${laneHeight - 2}px`,
        background: colour,
        opacity: String(0.45 + 0.55 * Math.min(1, Math.max(0, marker.severity ?? 0.5))),
        borderRadius: '2px',
        pointerEvents: 'auto',
        cursor: 'pointer',
      });
      el.addEventListener('click', (e) => {
        e.stopPropagation();
        ctx.emit('select', marker);
        options?.onSelect?.(marker);
      });
      root.appendChild(el);
    }
  }

  // Duration can arrive after registration (peaks loaded later), so re-render when it does.
  ctx.scope.add(ctx.wavesurfer.on('ready', render));
  ctx.scope.add(
    ctx.wavesurfer.on('redraw', () => root.childElementCount === 0 && markers.length && render()),
  );

  return {
    setMarkers(next) {
      markers = next.slice();
      render();
    },
    getMarkers: () => markers,
    clear() {
      markers = [];
      render();
    },
  };
});
