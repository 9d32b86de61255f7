/**
 * The waveform, drawn from the service's precomputed peaks (never decoded in the browser), playing the
 * signed audio address through a media element. Speaker turns are tinted regions, in/out points a
 * highlighted region, markers a plugin layer; the overview strip is wavesurfer's minimap.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import WaveSurfer from 'wavesurfer.js';
import MinimapPlugin from 'wavesurfer.js/dist/plugins/minimap.js';
import RegionsPlugin, { type Region } from 'wavesurfer.js/dist/plugins/regions.js';
import { useStore } from 'zustand';
import type { Peaks, TranscriptSegment } from '../api/types';
import { displayGain, displayPeak } from '../lib/display-scale';
import { speakerColor } from '../lib/format';
import type { Timebase } from '../lib/timecode';
import { MarkerLayer, type MarkerLayerApi } from '../markers/marker-layer';
import type { Marker } from '../markers/model';
import { Transport } from '../player/transport';
import type { PlayerStore } from '../state/player-store';
import { MarkerTooltip } from './analysis/MarkerTooltip';
import { Ruler } from './Ruler';

const REGIONS_PER_FRAME = 250;

export function Waveform(props: {
  peaks: Peaks;
  audioUrl: string;
  segments: TranscriptSegment[];
  timebase: Timebase | null;
  store: PlayerStore;
  markers: readonly Marker[];
  /** Marker kinds the legend's filters hide. */
  hiddenKinds?: ReadonlySet<string>;
  onMarkerSelect?: (marker: Marker) => void;
  /** A speaker region (a transcript line) was clicked. */
  onLineClick?: (segmentId: number) => void;
  onTransport: (t: Transport | null) => void;
  onAudioError: () => void;
  /**
   * Makes the segments' regions draggable (move) and resizable (either edge); called when a drag ends with
   * the region's new times and the edge moved (none: the whole region). The dub view retimes lines so.
   */
  onRegionChange?: (segmentId: number, times: { start: number; end: number }, side: 'start' | 'end' | undefined) => void;
  /** Tint of a segment's region (default: its speaker's colour); the dub view marks corrected lines. */
  regionColor?: (segment: TranscriptSegment) => string;
  /**
   * The peak drawn at full height (display only). Default: these peaks' own robust peak; the dub view passes
   * the uploaded revision's, so every revision is drawn on one scale.
   */
  displayPeak?: number;
}) {
  const { peaks, audioUrl, segments, timebase, store, markers, hiddenKinds, onTransport, onAudioError, regionColor } =
    props;
  const panelRef = useRef<HTMLDivElement>(null);
  const waveRef = useRef<HTMLDivElement>(null);
  const overviewRef = useRef<HTMLDivElement>(null);
  const [ws, setWs] = useState<WaveSurfer | null>(null);
  const [transport, setTransport] = useState<Transport | null>(null);
  const regionsRef = useRef<ReturnType<typeof RegionsPlugin.create> | null>(null);
  const markerRef = useRef<(MarkerLayerApi & object) | null>(null);
  const timebaseRef = useRef(timebase);
  timebaseRef.current = timebase;
  const onAudioErrorRef = useRef(onAudioError);
  onAudioErrorRef.current = onAudioError;
  const onMarkerSelectRef = useRef(props.onMarkerSelect);
  onMarkerSelectRef.current = props.onMarkerSelect;
  const onLineClickRef = useRef(props.onLineClick);
  onLineClickRef.current = props.onLineClick;
  const onRegionChangeRef = useRef(props.onRegionChange);
  onRegionChangeRef.current = props.onRegionChange;
  const editable = props.onRegionChange !== undefined;
  const [hover, setHover] = useState<{ marker: Marker; left: number; top: number } | null>(null);
  const ownPeak = useMemo(() => displayPeak(peaks.peaks), [peaks]);
  const fullScale = props.displayPeak ?? ownPeak;

  useEffect(() => {
    const container = waveRef.current;
    const overview = overviewRef.current;
    if (!container || !overview) return;
    // A new instance (e.g. a fresh audio address) starts unready and resumes where the editor was.
    const resumeAt = store.getState().currentTime;
    store.setState({ ready: false });
    const regions = RegionsPlugin.create();
    const markerLayer = MarkerLayer.create({
      onSelect: (marker) => onMarkerSelectRef.current?.(marker),
      onHover: (marker, box) => {
        const panel = panelRef.current?.getBoundingClientRect();
        if (!marker || !box || !panel) return setHover(null);
        // Under the marker, kept inside the panel's width.
        const left = Math.max(0, Math.min(box.left - panel.left, panel.width - 370));
        setHover({ marker, left, top: box.bottom - panel.top + 6 });
      },
    });
    const instance = WaveSurfer.create({
      container,
      height: 128,
      waveColor: '#4a5a72',
      progressColor: '#8fb3ff',
      cursorColor: '#ffcc00',
      cursorWidth: 2,
      barWidth: 2,
      barGap: 1,
      barRadius: 1,
      // Normalised to a robust peak (lib/display-scale), not the file's single loudest sample: the display
      // only; the audio element plays the file untouched.
      normalize: true,
      maxPeak: fullScale,
      peaks: [Float32Array.from(peaks.peaks)],
      duration: peaks.duration,
      url: audioUrl,
      minPxPerSec: 0,
      autoScroll: true,
      autoCenter: true,
      dragToSeek: true,
      plugins: [
        regions,
        markerLayer,
        MinimapPlugin.create({
          container: overview,
          height: 38,
          waveColor: '#39455a',
          progressColor: '#5d7bb0',
          cursorColor: '#ffcc00',
          cursorWidth: 1,
          overlayColor: 'rgba(255, 255, 255, 0.14)',
          normalize: true,
          maxPeak: fullScale,
        }),
      ],
    });
    regionsRef.current = regions;
    markerRef.current = markerLayer;
    const t = new Transport(instance, store, () => timebaseRef.current);
    const subs = [
      instance.on('ready', () => {
        if (resumeAt > 0) instance.setTime(resumeAt);
        store.setState({ ready: true });
      }),
      instance.on('error', (e) => {
        store.setState({ audioError: e.message || 'audio unavailable' });
        onAudioErrorRef.current();
      }),
      instance.on('interaction', (time) => store.setState({ currentTime: time })),
      regions.on('region-clicked', (region) => {
        const id = /^seg-(\d+)$/.exec(region.id)?.[1];
        if (id !== undefined) onLineClickRef.current?.(Number(id));
      }),
      regions.on('region-updated', (region, side) => {
        const id = /^seg-(\d+)$/.exec(region.id)?.[1];
        if (id !== undefined) onRegionChangeRef.current?.(Number(id), { start: region.start, end: region.end }, side === 'start' || side === 'end' ? side : undefined);
      }),
    ];
    // Zoom with Ctrl/Cmd + wheel over the waveform, as in editing suites.
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      if (e.deltaY < 0) t.zoomIn();
      else t.zoomOut();
    };
    container.addEventListener('wheel', onWheel, { passive: false });
    setWs(instance);
    setTransport(t);
    onTransport(t);
    return () => {
      container.removeEventListener('wheel', onWheel);
      subs.forEach((u) => u());
      onTransport(null);
      t.destroy();
      instance.destroy();
      regionsRef.current = null;
      markerRef.current = null;
      setWs(null);
      setTransport(null);
    };
  }, [peaks, audioUrl, store, onTransport, fullScale]);

  const ready = useStore(store, (s) => s.ready);

  // Speaker regions, added a few hundred per frame so a long transcript never blocks the UI. Only once
  // the waveform is laid out: the regions plugin decides visibility from the rendered width.
  useEffect(() => {
    const regions = regionsRef.current;
    if (!regions || !ws || !ready) return;
    let cancelled = false;
    let index = 0;
    const created: Region[] = [];
    const addBatch = () => {
      if (cancelled) return;
      const end = Math.min(segments.length, index + REGIONS_PER_FRAME);
      for (; index < end; index++) {
        const seg = segments[index]!;
        created.push(
          regions.addRegion({
            id: `seg-${seg.id}`,
            start: seg.start,
            end: Math.max(seg.end, seg.start + 0.01),
            color: regionColor ? regionColor(seg) : speakerColor(seg.speaker, 0.2),
            drag: editable,
            resize: editable,
          }),
        );
      }
      if (index < segments.length) frame = requestAnimationFrame(addBatch);
    };
    let frame = requestAnimationFrame(addBatch);
    return () => {
      cancelled = true;
      cancelAnimationFrame(frame);
      created.forEach((r) => r.remove());
    };
  }, [ws, ready, segments, regionColor, editable]);

  // In/out points as a highlighted region.
  const inPoint = useStore(store, (s) => s.inPoint);
  const outPoint = useStore(store, (s) => s.outPoint);
  useEffect(() => {
    const regions = regionsRef.current;
    if (!regions || !ws || !ready || (inPoint === null && outPoint === null)) return;
    const start = inPoint ?? outPoint ?? 0;
    const region = regions.addRegion({
      id: 'in-out',
      start,
      end: inPoint !== null && outPoint !== null ? outPoint : start,
      color: inPoint !== null && outPoint !== null ? 'rgba(255, 255, 255, 0.16)' : 'rgba(255, 204, 0, 0.9)',
      drag: false,
      resize: false,
    });
    return () => region.remove();
  }, [ws, ready, inPoint, outPoint]);

  useEffect(() => {
    markerRef.current?.setMarkers(markers);
  }, [ws, markers]);

  useEffect(() => {
    markerRef.current?.setHidden(hiddenKinds ?? new Set());
  }, [ws, hiddenKinds]);

  return (
    <div className="wave-panel" ref={panelRef}>
      <Ruler ws={ws} timebase={timebase} store={store} onSeek={(t) => transport?.seek(t)} />
      <div className="waveform" ref={waveRef} data-testid="waveform" data-ready={ready ? 'true' : 'false'} />
      <DisplayScaleLabel peak={fullScale} shared={props.displayPeak !== undefined} />
      <div className="overview" ref={overviewRef} data-testid="overview" title="Overview: click to jump" />
      {hover && <MarkerTooltip marker={hover.marker} left={hover.left} top={hover.top} />}
    </div>
  );
}

/** Says the waveform is drawn normalised (how much, and that the audio is not), in the panel's corner. */
function DisplayScaleLabel({ peak, shared }: { peak: number; shared: boolean }) {
  const { gain, dbfs } = displayGain(peak);
  const times = gain >= 10 ? Math.round(gain).toString() : gain.toFixed(1);
  return (
    <div
      className="display-scale"
      data-testid="display-normalised"
      data-peak={peak}
      title={
        `The waveform is drawn so that ${dbfs.toFixed(1)} dBFS fills its height (×${times}); louder moments ` +
        `are cut at the edge.${shared ? ' Every revision of this dub is drawn on the uploaded one’s scale.' : ''} ` +
        'Display only: the audio you hear and export is unchanged.'
      }
    >
      display normalised ×{times}
    </div>
  );
}
