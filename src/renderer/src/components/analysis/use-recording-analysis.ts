/**
 * The recording view's analysis, in one hook: the watcher that polls the Analysis document while it is
 * open, the markers it places (with the legend's hidden kinds, kept between sessions), the selected line,
 * and what clicking a marker does (select its span as in/out points, open its line).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { AnalysisSegment } from '../../../../shared/schemas/analysis';
import type { ApiClient } from '../../api/client';
import { analysisMarkers } from '../../analysis/markers';
import { createAnalysisWatcher, type AnalysisWatcher } from '../../analysis/watcher';
import { formatReadout, type Timebase } from '../../lib/timecode';
import { parseHidden, serializeHidden, toggleKind, toggleLane } from '../../markers/filters';
import type { Marker } from '../../markers/model';
import type { Transport } from '../../player/transport';
import type { PlayerStore } from '../../state/player-store';

const HIDDEN_KEY = 'takeline.markers.hidden';

function readHidden(): Set<string> {
  try {
    return parseHidden(localStorage.getItem(HIDDEN_KEY));
  } catch {
    return new Set();
  }
}

export interface RecordingAnalysis {
  watcher: AnalysisWatcher;
  markers: readonly Marker[];
  hidden: ReadonlySet<string>;
  toggleKind(kind: string): void;
  toggleLane(kinds: readonly string[]): void;
  selectedLine: number | null;
  selectLine(id: number | null): void;
  /** The selected line's analysis, null when not measured (yet). */
  selectedAnalysis: AnalysisSegment | null;
  selectMarker(marker: Marker): void;
}

export function useRecordingAnalysis(args: {
  api: ApiClient;
  sessionId: string;
  timebase: Timebase | null;
  speakerName: (label: string) => string;
  player: PlayerStore | null;
  transport: Transport | null;
  /** The recording is still being transcribed (its analysis is queued when the transcript is stored). */
  transcribing?: boolean;
}): RecordingAnalysis {
  const { api, sessionId, timebase, speakerName, player, transport, transcribing = false } = args;
  // One watcher per open recording: polling ends when the view closes or another recording opens. A recording
  // opened while transcribing has no analysis yet: a new watcher starts when its transcript (and so its
  // analysis run) arrives.
  const watcher = useMemo(() => createAnalysisWatcher(api, sessionId), [api, sessionId, transcribing]);
  useEffect(() => {
    watcher.start();
    return () => watcher.stop();
  }, [watcher]);

  const shown = useStore(watcher.store, (s) => s.shown);
  const markers = useMemo(
    () =>
      shown
        ? analysisMarkers(shown.intelligence, { speakerName, formatTime: (t) => formatReadout(t, timebase) })
        : [],
    [shown, speakerName, timebase],
  );

  const [hidden, setHidden] = useState<ReadonlySet<string>>(readHidden);
  const update = useCallback((next: Set<string>) => {
    setHidden(next);
    try {
      localStorage.setItem(HIDDEN_KEY, serializeHidden(next));
    } catch {
      /* storage unavailable: the choice lasts for this view */
    }
  }, []);

  const [selectedLine, selectLine] = useState<number | null>(null);
  const selectedAnalysis = useMemo(
    () =>
      selectedLine === null
        ? null
        : (shown?.intelligence.segments.find((s) => s.id === selectedLine) ?? null),
    [shown, selectedLine],
  );

  const selectMarker = useCallback(
    (marker: Marker) => {
      const end = marker.end ?? marker.start;
      if (player && end > marker.start) player.setState({ inPoint: marker.start, outPoint: end });
      transport?.seek(marker.at ?? marker.start);
      if (marker.segmentId !== undefined) selectLine(marker.segmentId);
    },
    [player, transport],
  );

  return {
    watcher,
    markers,
    hidden,
    toggleKind: (kind) => update(toggleKind(hidden, kind)),
    toggleLane: (kinds) => update(toggleLane(hidden, kinds)),
    selectedLine,
    selectLine,
    selectedAnalysis,
    selectMarker,
  };
}
