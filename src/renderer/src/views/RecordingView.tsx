import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { Media, Session, TranscriptSegment } from '../api/types';
import type { ApiClient } from '../api/client';
import type { MappedSession } from '../api/transcript-edits';
import { AlignScriptDialog } from '../components/AlignScriptDialog';
import { InlineEdit } from '../components/InlineEdit';
import { LearningNote } from '../components/LearningNote';
import { ReplaceDialog } from '../components/ReplaceDialog';
import { useCorrections } from '../components/use-corrections';
import { countDoubtful } from '../lib/confidence';
import { activeSegmentIndex } from '../lib/transcript-index';
import { LineSpeakerDialog } from '../components/LineSpeakerDialog';
import { SpeakerPanel } from '../components/SpeakerPanel';
import { isActive } from '../api/types';
import { useApp, useMay } from '../app-context';
import { DubsPanel } from '../components/DubsPanel';
import { ADD_MARKER_EVENT, MarkersPanel, useEditorMarkers } from '../components/MarkersPanel';
import { AnalysisInsights, type InsightTab } from '../components/analysis/AnalysisInsights';
import { AnalysisStatus } from '../components/analysis/AnalysisStatus';
import { SelectedLinePanel } from '../components/analysis/LinePanel';
import { MarkerLegend } from '../components/analysis/MarkerLegend';
import { useRecordingAnalysis } from '../components/analysis/use-recording-analysis';
import { ExportMenu } from '../components/ExportMenu';
import { PlayLabel } from '../components/PlayLabel';
import { ProgressBar } from '../components/ProgressBar';
import { processingLabel, processingWaits } from '../lib/processing';
import { ShortcutSheet } from '../components/ShortcutSheet';
import { Empty, ErrorState, Loading } from '../components/States';
import { TimebaseDialog } from '../components/TimebaseDialog';
import { TopBar } from '../components/TopBar';
import { Transcript } from '../components/Transcript';
import { Waveform } from '../components/Waveform';
import { ZoomControls } from '../components/ZoomControls';
import { useLoad } from '../hooks';
import { formatBytes, formatDuration, speakerColor } from '../lib/format';
import { routeHash } from '../lib/route';
import { actionForKey, isTypingTarget, type EditorAction } from '../lib/shortcuts';
import { shuttleLabel } from '../lib/shuttle';
import { formatLength, formatReadout, timebaseFromMedia, type Timebase } from '../lib/timecode';
import { searchSegments } from '../lib/transcript-index';
import { markedRange, nextMarkerTime } from '../lib/in-out';
import { speakerDisplayName, speakersInOrder } from '../lib/speaker-names';
import { kindStyle } from '../markers/kinds';
import { visibleMarkers } from '../markers/filters';
import type { Marker } from '../markers/model';
import { withOwnMarkers } from '../markers/own';
import type { Transport } from '../player/transport';
import { transportActions } from '../player/transport-keys';
import { createPlayerStore, type PlayerStore } from '../state/player-store';

const POLL_MS = 1000;
const MAX_LEGEND = 8;

export function RecordingView({ sessionId }: { sessionId: string }) {
  const { api } = useApp();
  const [session, updateSession, reload] = useLoad(
    (signal) => api.getSession(sessionId, signal),
    [sessionId],
  );

  // The waveform's peaks and the audio's address are asked for beside the session, not after it: on a long
  // recording the session (its whole transcript) takes a while to arrive, and the waveform waits for both.
  const assetsAhead = useRef<Promise<EditorAssets> | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const ahead = loadEditorAssets(api, sessionId, controller.signal);
    ahead.catch(() => undefined);
    assetsAhead.current = ahead;
    return () => {
      controller.abort();
      assetsAhead.current = null;
    };
  }, [api, sessionId]);
  const takeAssetsAhead = useCallback(() => {
    const ahead = assetsAhead.current;
    assetsAhead.current = null;
    return ahead;
  }, []);

  // Still processing: poll until it settles, then the editor opens.
  const active = session.state === 'ready' && isActive(session.value.status);
  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    const timer = setInterval(() => {
      api.getSession(sessionId, controller.signal).then(
        (s) => updateSession(() => s),
        () => undefined,
      );
    }, POLL_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
    // updateSession only wraps a state setter
  }, [active, api, sessionId]);

  const crumbs: { label: string; href?: string }[] = [{ label: 'Projects', href: '#/' }];
  if (session.state === 'ready') {
    const p = session.value.project;
    crumbs.push(
      { label: p.name, href: routeHash({ name: 'project', key: p.key }) },
      { label: session.value.file_name },
    );
  }

  // The editor opens as soon as the audio is stored: the waveform plays while the transcript is made.
  if (session.state !== 'ready' || (session.value.status !== 'complete' && !isActive(session.value.status))) {
    return (
      <>
        <TopBar crumbs={crumbs} />
        <main className="page">
          {session.state === 'loading' && <Loading label="Opening recording…" />}
          {session.state === 'error' && <ErrorState message={session.message} onRetry={reload} />}
          {session.state === 'ready' && session.value.status === 'failed' && (
            <ErrorState
              message={session.value.error ?? 'Processing failed'}
              onRetry={() =>
                api.retrySession(sessionId).then(
                  (s) => updateSession((old) => ({ ...old, ...s })),
                  reload,
                )
              }
            />
          )}
        </main>
      </>
    );
  }
  return (
    <Editor
      session={session.value}
      takeAssetsAhead={takeAssetsAhead}
      crumbs={crumbs}
      onMedia={(media) => updateSession((s) => ({ ...s, media }))}
      onSession={(s) => updateSession(() => s)}
    />
  );
}

interface EditorAssets {
  peaks: Awaited<ReturnType<ApiClient['getPeaks']>>;
  audioUrl: string;
}

async function loadEditorAssets(api: ApiClient, sessionId: string, signal: AbortSignal): Promise<EditorAssets> {
  const [peaks, audio] = await Promise.all([api.getPeaks(sessionId, signal), api.getAudioAddress(sessionId, signal)]);
  return { peaks, audioUrl: audio.url };
}

function Editor({
  session,
  takeAssetsAhead,
  crumbs,
  onMedia,
  onSession,
}: {
  session: MappedSession;
  /** What the view asked for while the session loaded (once; a reload asks again). */
  takeAssetsAhead: () => Promise<EditorAssets> | null;
  crumbs: { label: string; href?: string }[];
  onMedia: (media: Media) => void;
  onSession: (session: Session) => void;
}) {
  const { api, store: appStore } = useApp();
  const [assets, , reloadAssets] = useLoad(
    (signal) => takeAssetsAhead() ?? loadEditorAssets(api, session.id, signal),
    [session.id],
  );
  const [project] = useLoad((signal) => api.getProject(session.project.key, signal), [session.project.key]);
  const timebase = useMemo(() => timebaseFromMedia(session.media), [session.media]);
  const segments = useMemo(() => session.transcript?.segments ?? [], [session.transcript]);
  const [query, setQuery] = useState('');
  const [tab, setTab] = useState<'transcript' | InsightTab>('transcript');
  const visible = useMemo(() => searchSegments(segments, query), [segments, query]);
  const [dialog, setDialog] = useState<'timebase' | 'shortcuts' | 'replace' | 'align' | null>(null);
  const [transport, setTransport] = useState<Transport | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const onTransport = useCallback((t: Transport | null) => setTransport(t), []);
  const audioRetried = useRef(false);

  // One player store for the life of the view: a reload of the audio address keeps the position.
  const [player, setPlayer] = useState<PlayerStore | null>(null);
  const loadedDuration = assets.state === 'ready' ? assets.value.peaks.duration : null;
  useEffect(() => {
    if (loadedDuration !== null) setPlayer((p) => p ?? createPlayerStore(loadedDuration));
  }, [loadedDuration]);

  // One naming everywhere: the session's speaker map (the project speaker's name), as every export names them.
  const speakerMap = session.speaker_map;
  const speakerName = useCallback((label: string) => speakerDisplayName(label, speakerMap), [speakerMap]);

  const transcribing = isActive(session.status);
  const analysis = useRecordingAnalysis({
    api,
    transcribing,
    sessionId: session.id,
    timebase,
    speakerName,
    player,
    transport,
  });
  // The speaker fixes show each label with its project speaker's name ("Speaker 2 · S2").
  const mapped = session.speaker_map;
  const editName = useCallback(
    (label: string) => (mapped?.[label] ? `${mapped[label].name} · ${label}` : speakerName(label)),
    [mapped, speakerName],
  );

  // Speaker fixes and word corrections: each is a transcript revision; the edited session replaces the one
  // shown, and Ctrl+Z / Ctrl+Shift+Z undo and redo them (use-corrections.ts).
  const [lineEdit, setLineEdit] = useState<TranscriptSegment | null>(null);
  const notify = useCallback(
    (text: string, kind?: 'info' | 'error') => appStore.getState().notify(text, kind),
    [appStore],
  );
  // The editor's own markers (Markers panel) are drawn and visited with the analysis' markers.
  const own = useEditorMarkers(session.id);
  const timelineMarkers = useMemo(() => withOwnMarkers(own.markers, analysis.markers), [own.markers, analysis.markers]);
  // Marker jumps (] / [, and Shift for the same kind): the kind last reached or clicked, and what was reached.
  const lastKind = useRef<string | null>(null);
  const [reached, setReached] = useState<Marker | null>(null);
  const markerState = useRef({ markers: timelineMarkers, hidden: analysis.hidden, selectLine: analysis.selectLine });
  markerState.current = { markers: timelineMarkers, hidden: analysis.hidden, selectLine: analysis.selectLine };
  const onMarkerSelect = useCallback(
    (marker: Marker) => {
      lastKind.current = marker.kind;
      setReached(marker);
      analysis.selectMarker(marker);
    },
    [analysis.selectMarker],
  );

  const corrections = useCorrections({ api, sessionId: session.id, segments, onSession, transport, player, notify });
  // A viewer reads, plays, exports and leaves notes: no correcting, aligning or setting the timebase.
  const canEdit = useMay('editor', session.project.id);
  const { revision, applied: onEdited, editing } = corrections;
  const doubtful = useMemo(() => countDoubtful(segments), [segments]);
  const focusWord = useMemo(() => {
    const f = corrections.focus;
    const seg = f ? segments[f.line] : undefined;
    return f && seg && seg.words[f.word] ? { segmentId: seg.id, word: f.word } : null;
  }, [corrections.focus, segments]);
  const editBox = editing && (
    <InlineEdit
      key={`${editing.segmentId}:${editing.word}`}
      initial={editing.initial}
      multiline={editing.word === null}
      busy={corrections.busy}
      error={corrections.error}
      onSave={corrections.save}
      onCancel={corrections.cancel}
      onShuttle={(k) => transport?.shuttle(k)}
    />
  );

  // Editors' keys. Never while typing in a field or when a dialog is open (it handles its own keys).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTypingTarget(e.target as HTMLElement)) {
        if (e.key === 'Escape' && e.target === searchRef.current) searchRef.current?.blur();
        return;
      }
      if (dialog || lineEdit) return;
      const action = actionForKey(e);
      // A correction open (or opening: the double-click set it, the box is not drawn yet) takes the keys: a
      // letter typed before the box has focus goes into it, never to a shortcut ("m" would add a marker).
      // Undo and redo stay: while the box saves, Ctrl+Z waits for the save and then undoes it.
      if (corrections.editingRef.current && action !== 'undo' && action !== 'redo') {
        const box = document.querySelector<HTMLElement>('[data-testid=correction-input]');
        if (box && !box.matches(':disabled')) box.focus();
        return;
      }
      if (!action) return;
      // Enter on a focused button or link is that control's.
      const tag = (e.target as HTMLElement | null)?.tagName;
      if (action === 'edit-word' && (tag === 'BUTTON' || tag === 'A' || tag === 'SUMMARY')) return;
      // Tab moves focus as usual from controls other than the transcript.
      if ((action === 'next-doubtful' || action === 'prev-doubtful') && tag !== 'BODY' && !(e.target as HTMLElement).closest?.('[data-testid=transcript]'))
        return;
      e.preventDefault();
      run(action);
    };
    const run = (action: EditorAction) => {
      if (action === 'show-shortcuts') return setDialog('shortcuts');
      if (action === 'find') {
        // The search box lives on the transcript tab.
        setTab('transcript');
        return void requestAnimationFrame(() => searchRef.current?.focus());
      }
      if (action === 'undo') return void corrections.undo();
      if (action === 'redo') return void corrections.redo();
      if (action === 'next-doubtful' || action === 'prev-doubtful') {
        setTab('transcript');
        return corrections.stepDoubtful(action === 'next-doubtful' ? 1 : -1);
      }
      if (action === 'edit-word' || action === 'edit-line') {
        if (editing) return;
        setTab('transcript');
        const f = corrections.focus;
        if (action === 'edit-word' && f && segments[f.line]) return corrections.startEdit(segments[f.line]!.id, f.word);
        const at = player ? activeSegmentIndex(segments, player.getState().currentTime) : -1;
        const line = segments[Math.max(0, at)];
        return line && corrections.startEdit(line.id, null);
      }
      if (!transport) return;
      const jump = (dir: 1 | -1, sameKind: boolean) => {
        const { markers, hidden, selectLine } = markerState.current;
        const kind = sameKind ? lastKind.current : null;
        if (sameKind && !kind) return notify('Reach or click a marker first: Shift+] / Shift+[ then follow its kind');
        const shown = visibleMarkers(markers, hidden);
        const pool = kind ? shown.filter((m) => m.kind === kind) : shown;
        const t = nextMarkerTime(pool, transport.currentTime, dir);
        const what = kind ? kindStyle(kind).label.toLowerCase() : shown.length ? 'marker' : 'marker on the timeline yet';
        if (t === null) return notify(`No ${what} ${dir > 0 ? 'after' : 'before'} the playhead`);
        const marker = pool.find((m) => (m.at ?? m.start) === t)!;
        lastKind.current = marker.kind;
        setReached(marker);
        transport.seek(t);
        if (marker.segmentId !== undefined) selectLine(marker.segmentId);
      };
      const playRange = (loop: boolean) => {
        if (!transport.playRange(loop)) notify('Set an in point (I) or an out point (O) first');
      };
      const { inPoint, outPoint } = player?.getState() ?? { inPoint: null, outPoint: null };
      const map: Partial<Record<EditorAction, () => void>> = {
        'go-in': () => (inPoint === null ? notify('No in point: press I to set one') : transport.seek(inPoint)),
        'go-out': () => (outPoint === null ? notify('No out point: press O to set one') : transport.seek(outPoint)),
        'play-range': () => playRange(false),
        'loop-range': () => playRange(true),
        'add-marker': () => void window.dispatchEvent(new Event(ADD_MARKER_EVENT)),
        'next-marker': () => jump(1, false),
        'prev-marker': () => jump(-1, false),
        'next-marker-kind': () => jump(1, true),
        'prev-marker-kind': () => jump(-1, true),
        ...transportActions(transport),
      };
      map[action]?.();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [transport, dialog, lineEdit, corrections, editing, segments, player, notify]);

  const seek = useCallback((t: number) => transport?.seek(t), [transport]);
  const onAudioError = useCallback(() => {
    // The signed address expires after an hour: fetch a fresh one once.
    if (audioRetried.current)
      return appStore.getState().notify('Audio unavailable; the waveform still works', 'error');
    audioRetried.current = true;
    reloadAssets();
  }, [appStore, reloadAssets]);

  // The legend lists the voices in the order the recording first hears them.
  const speakers = useMemo(() => speakersInOrder(session.transcript), [session.transcript]);
  return (
    <>
      <TopBar crumbs={crumbs}>
        {canEdit && (
          <button onClick={() => setDialog('timebase')} data-testid="open-timebase">
            Timebase{timebase ? `: ${timebase.frameRate}${timebase.dropFrame ? ' DF' : ''}` : ''}
          </button>
        )}
        {player ? (
          <RangeExportMenu sessionId={session.id} store={player} timebase={timebase} />
        ) : (
          <ExportMenu sessionId={session.id} />
        )}
        <button className="ghost" aria-label="Keyboard shortcuts" onClick={() => setDialog('shortcuts')}>
          ?
        </button>
      </TopBar>
      <div className="editor">
        <div className="transport">
          {player ? (
            <Readouts store={player} timebase={timebase} />
          ) : (
            <span className="readout">--:--:--:--</span>
          )}
          {reached && (
            <span className="hint marker-reached" data-testid="marker-reached" data-kind={reached.kind} data-time={reached.at ?? reached.start}>
              {reached.label} · {formatReadout(reached.at ?? reached.start, timebase)}
            </span>
          )}
          <div className="spacer" />
          <div className="speakers-legend" title={speakers.map(speakerName).join(', ')}>
            {speakers.slice(0, MAX_LEGEND).map((s) => (
              <span key={s}>
                <span className="swatch" style={{ background: speakerColor(s) }} />
                {speakerName(s)}
              </span>
            ))}
            {speakers.length > MAX_LEGEND && <span>+{speakers.length - MAX_LEGEND} more</span>}
          </div>
          <ZoomControls transport={transport} />
          <button
            className="primary"
            onClick={() => transport?.playPause()}
            disabled={!transport}
            data-testid="play"
          >
            {player ? <PlayLabel store={player} /> : 'Play'}
          </button>
        </div>
        <div>
          {assets.state === 'loading' && (
            <div className="wave-panel" style={{ height: 232 }}>
              <Loading label="Loading waveform…" />
            </div>
          )}
          {assets.state === 'error' && <ErrorState message={assets.message} onRetry={reloadAssets} />}
          {assets.state === 'ready' && player && (
            <Waveform
              peaks={assets.value.peaks}
              audioUrl={assets.value.audioUrl}
              segments={segments}
              timebase={timebase}
              store={player}
              markers={timelineMarkers}
              hiddenKinds={analysis.hidden}
              onMarkerSelect={onMarkerSelect}
              onLineClick={analysis.selectLine}
              onTransport={onTransport}
              onAudioError={onAudioError}
            />
          )}
          <MarkerLegend
            markers={timelineMarkers}
            hidden={analysis.hidden}
            onToggleKind={analysis.toggleKind}
            onToggleLane={analysis.toggleLane}
          />
        </div>
        {/* The line panel's column is there whether a line is open or not: opening it moves nothing (the
            double-click that corrects a word starts with the click that opens it). */}
        <div className="lower with-line">
          <section className="transcript-panel" aria-label="Transcript and analysis">
            <div className="panel-tabs" role="tablist" aria-label="Show">
              {(
                [
                  ['transcript', 'Transcript'],
                  ['summary', 'Summary'],
                  ['speakers', 'Speakers'],
                ] as const
              ).map(([id, label]) => (
                <button
                  key={id}
                  role="tab"
                  aria-selected={tab === id}
                  className={tab === id ? 'active' : ''}
                  data-testid={`tab-${id}`}
                  onClick={() => setTab(id)}
                >
                  {label}
                </button>
              ))}
            </div>
            {tab !== 'transcript' ? (
              <AnalysisInsights
                tab={tab}
                analysis={analysis}
                player={player}
                speakerName={speakerName}
                formatTime={(t) => formatReadout(t, timebase)}
                timebase={timebase}
                onSeek={seek}
              />
            ) : (
              <>
                <div className="transcript-tools">
                  <input
                    ref={searchRef}
                    type="search"
                    placeholder="Search transcript (/ or Ctrl+F)"
                    value={query}
                    onChange={(e) => setQuery(e.target.value)}
                    data-testid="search"
                    aria-label="Search transcript"
                  />
                  {canEdit && (
                    <>
                      <button onClick={() => setDialog('replace')} data-testid="open-replace" disabled={segments.length === 0}>
                        Replace…
                      </button>
                      <button onClick={() => setDialog('align')} data-testid="open-align" disabled={transcribing}>
                        Align a script…
                      </button>
                    </>
                  )}
                  {/* Counts and the learning note on a row of their own: the search and the buttons keep their width beside the line panel. */}
                  <div className="tools-status">
                    <span className="hint" data-testid="search-count">
                      {query.trim()
                        ? `${visible.length} of ${segments.length} lines`
                        : `${segments.length} lines`}
                    </span>
                    <span
                      className="hint doubt-count"
                      data-testid="doubtful-count"
                      title="Words the recognizer was less than 50% sure of (shaded red; 50–80% shaded amber). Tab goes to the next one."
                    >
                      <span className="doubt-swatch" style={{ background: 'rgba(229, 72, 77, 0.5)' }} />
                      {doubtful} doubtful {doubtful === 1 ? 'word' : 'words'}
                    </span>
                    {/* What corrections taught the recognizer. */}
                    <LearningNote api={api} projectKey={session.project.key} speakerIds={Object.values(session.speaker_map ?? {}).map((m) => m.speaker_id)} revision={revision} />
                  </div>
                </div>
                {transcribing ? (
                  <div className="transcribing-note" data-testid="transcribing">
                    <div className="title">
                      {session.status === 'queued' ? 'Waiting to transcribe' : 'Transcribing'} {session.file_name}
                    </div>
                    <ProgressBar
                      value={processingWaits(session) ? null : session.progress}
                      label={processingLabel(session)}
                      testId="processing-progress"
                    />
                    <div className="hint">
                      The audio is ready: play it, mark in and out points and jump around while the transcript is made.
                    </div>
                  </div>
                ) : segments.length === 0 ? (
                  <Empty title="No speech found">The transcript of this recording is empty.</Empty>
                ) : visible.length === 0 ? (
                  <Empty title="No matches">Nothing in the transcript matches “{query}”.</Empty>
                ) : player ? (
                  <Transcript
                    segments={segments}
                    visible={visible}
                    query={query}
                    store={player}
                    timebase={timebase}
                    speakerName={speakerName}
                    onSeek={seek}
                    selectedId={analysis.selectedLine}
                    onSelectLine={analysis.selectLine}
                    onSpeakerClick={setLineEdit}
                    editing={editing}
                    editor={editBox}
                    onEditWord={canEdit ? corrections.startEdit : undefined}
                    focusWord={focusWord}
                  />
                ) : (
                  <Loading label="Preparing transcript…" />
                )}
              </>
            )}
          </section>
          <SelectedLinePanel
            analysis={analysis}
            segments={segments}
            timebase={timebase}
            speakerName={speakerName}
            onSeek={seek}
          />
          <aside className="side">
            <AnalysisStatus watcher={analysis.watcher} />
            <div>
              <h4>Recording</h4>
              <dl className="kv">
                <dt>Length</dt>
                <dd>{formatDuration(session.duration)}</dd>
                {session.format && (
                  <>
                    <dt>Format</dt>
                    <dd>
                      {session.format.codec} {session.format.sample_rate / 1000} kHz {session.format.channels}{' '}
                      ch
                    </dd>
                    <dt>Size</dt>
                    <dd>{formatBytes(session.format.size_bytes)}</dd>
                  </>
                )}
                <dt>Language</dt>
                <dd>{session.language ?? '—'}</dd>
              </dl>
            </div>
            <div>
              <h4>Timebase</h4>
              {session.media ? (
                <dl className="kv" data-testid="timebase-summary">
                  <dt>Rate</dt>
                  <dd>
                    {session.media.frame_rate} {session.media.drop_frame ? 'DF' : 'NDF'}
                  </dd>
                  <dt>Start</dt>
                  <dd>{session.media.start_timecode ?? '—'}</dd>
                  <dt>Tape</dt>
                  <dd>{session.media.tape || '—'}</dd>
                </dl>
              ) : (
                <div className="hint">Not set: times show as clock time. Press “Timebase” to set one.</div>
              )}
            </div>
            {segments.length > 0 && (
              <SpeakerPanel
                session={session}
                revision={revision}
                revisionAuthor={corrections.revisionAuthor}
                speakerName={editName}
                onEdited={onEdited}
                onSession={onSession}
              />
            )}
            {player && <InOut store={player} timebase={timebase} transport={transport} />}
            <MarkersPanel
              sessionId={session.id}
              transport={transport}
              formatTime={(t) => formatReadout(t, timebase)}
              markers={own.markers}
              setMarkers={own.setMarkers}
              loadError={own.error}
            />
            <DubsPanel sessionId={session.id} />
            <div className="hint">
              Press <kbd>?</kbd> for keyboard shortcuts.
            </div>
          </aside>
        </div>
      </div>
      {dialog === 'timebase' && (
        <TimebaseDialog
          sessionId={session.id}
          media={session.media}
          onClose={() => setDialog(null)}
          onSaved={(media) => {
            onMedia(media);
            setDialog(null);
          }}
        />
      )}
      {dialog === 'shortcuts' && <ShortcutSheet onClose={() => setDialog(null)} />}
      {dialog === 'replace' && (
        <ReplaceDialog
          sessionId={session.id}
          project={{ key: session.project.key, name: session.project.name }}
          revision={revision}
          onEdited={onEdited}
          onStale={corrections.reloadStale}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'align' && (
        <AlignScriptDialog
          sessionId={session.id}
          revision={revision}
          onEdited={onEdited}
          onStale={corrections.reloadStale}
          onClose={() => setDialog(null)}
        />
      )}
      {lineEdit && (
        <LineSpeakerDialog
          session={session}
          segment={lineEdit}
          revision={revision}
          projectSpeakers={project.state === 'ready' ? project.value.speakers : []}
          speakerName={editName}
          onEdited={onEdited}
          onClose={() => setLineEdit(null)}
        />
      )}
      {player && <InteractiveMark store={player} />}
    </>
  );
}

/** Marks the view interactive once the waveform is drawn and the transcript laid out (the benchmark waits on it). */
function InteractiveMark({ store }: { store: PlayerStore }) {
  const ready = useStore(store, (s) => s.ready);
  useEffect(() => {
    if (!ready) return;
    performance.mark('takeline:interactive');
    document.documentElement.dataset.interactive = 'true';
    return () => void delete document.documentElement.dataset.interactive;
  }, [ready]);
  return null;
}

function Readouts({ store, timebase }: { store: PlayerStore; timebase: Timebase | null }) {
  const t = useStore(store, (s) => s.currentTime);
  const rate = useStore(store, (s) => s.rate);
  const duration = useStore(store, (s) => s.duration);
  const error = useStore(store, (s) => s.audioError);
  return (
    <>
      <span className="readout" data-testid="readout" aria-label="Current time">
        {formatReadout(t, timebase)}
      </span>
      <span className="shuttle" data-testid="shuttle">
        {shuttleLabel(rate)}
      </span>
      <span className="readout-small" data-testid="readout-length" title="The recording's length">
        of <b>{formatLength(duration, timebase)}</b>
      </span>
      {error && (
        <span className="field-error" role="alert">
          Audio: {error}
        </span>
      )}
    </>
  );
}

function InOut({ store, timebase, transport }: { store: PlayerStore; timebase: Timebase | null; transport: Transport | null }) {
  const inPoint = useStore(store, (s) => s.inPoint);
  const outPoint = useStore(store, (s) => s.outPoint);
  const duration = useStore(store, (s) => s.duration);
  const rangePlay = useStore(store, (s) => s.rangePlay);
  const range = markedRange(inPoint, outPoint, duration);
  const length = timebase ? { ...timebase, startTimecode: null } : null;
  return (
    <div>
      <h4>In / out</h4>
      <dl className="kv" data-testid="in-out">
        <dt>In</dt>
        <dd data-testid="in-point">{inPoint === null ? '—' : formatReadout(inPoint, timebase)}</dd>
        <dt>Out</dt>
        <dd data-testid="out-point">{outPoint === null ? '—' : formatReadout(outPoint, timebase)}</dd>
        <dt>Length</dt>
        <dd data-testid="in-out-length">{range ? formatReadout(range.end - range.start, length) : '—'}</dd>
      </dl>
      <div className="in-out-actions">
        <button onClick={() => transport?.markIn()} disabled={!transport} title="Set the in point at the playhead (I)" data-testid="mark-in">
          In
        </button>
        <button onClick={() => transport?.markOut()} disabled={!transport} title="Set the out point at the playhead (O)" data-testid="mark-out">
          Out
        </button>
        <button
          onClick={() => transport?.playRange(false)}
          disabled={!transport || !range}
          aria-pressed={rangePlay === 'once'}
          title="Play from in to out (P)"
          data-testid="play-range"
        >
          ▶ In→out
        </button>
        <button
          onClick={() => (rangePlay === 'loop' ? transport?.stop() : transport?.playRange(true))}
          disabled={!transport || !range}
          aria-pressed={rangePlay === 'loop'}
          title="Play from in to out in a loop; press again (or K) to stop (Shift+P)"
          data-testid="loop-range"
        >
          ⟳ Loop
        </button>
        <button
          className="ghost"
          onClick={() => transport?.clearMarks()}
          disabled={!transport || (inPoint === null && outPoint === null)}
          title="Clear the in and out points (Shift+X)"
          data-testid="clear-marks"
        >
          Clear
        </button>
      </div>
    </div>
  );
}

/** The export menu with the in→out range offered when one is marked. */
function RangeExportMenu({ sessionId, store, timebase }: { sessionId: string; store: PlayerStore; timebase: Timebase | null }) {
  const inPoint = useStore(store, (s) => s.inPoint);
  const outPoint = useStore(store, (s) => s.outPoint);
  const duration = useStore(store, (s) => s.duration);
  const range = useMemo(() => markedRange(inPoint, outPoint, duration), [inPoint, outPoint, duration]);
  return <ExportMenu sessionId={sessionId} range={range} formatTime={(t) => formatReadout(t, timebase)} />;
}
