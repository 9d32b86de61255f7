import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { saveFile } from '../api/client';
import type { DubExportFormat } from '../api/dub-workflow';
import { messageOf } from '../api/errors';
import type { Dub, DubLine, DubRevision, Revoice, TranscriptSegment } from '../api/types';
import { useApp, useMay } from '../app-context';
import { StemsDownload } from '../components/StemsDownload';
import { DubLines } from '../components/DubLines';
import { CueSheetControls } from '../components/CueSheetControls';
import { DubShortcutSheet } from '../components/DubShortcutSheet';
import { DubTakes } from '../components/DubTakes';
import { PlayLabel } from '../components/PlayLabel';
import { ProgressBar } from '../components/ProgressBar';
import { ErrorState, Empty, Loading } from '../components/States';
import { TopBar } from '../components/TopBar';
import { useDubEdits, type DubEdits } from '../components/use-dub-edits';
import { Waveform } from '../components/Waveform';
import { ZoomControls } from '../components/ZoomControls';
import { useLoad, usePolling } from '../hooks';
import { displayPeak } from '../lib/display-scale';
import { abRevisions, abWindow, preparingLabel, unfitLabel, voiceChoices } from '../lib/dub';
import { dubActionForKey, lineAt, lineNumbers, makeRoom, neighbour, nextLeft, type DubAction, type RoomPlan } from '../lib/dub-lines';
import { formatDuration, speakerColor } from '../lib/format';
import { routeHash } from '../lib/route';
import { actionForKey, isTypingTarget, type EditorAction } from '../lib/shortcuts';
import { shuttleLabel } from '../lib/shuttle';
import { formatLength, formatReadout, timebaseFromMedia, type Timebase } from '../lib/timecode';
import type { Marker } from '../markers/model';
import { AbPlayer, type AbRequest } from '../player/ab-player';
import type { Transport } from '../player/transport';
import { transportActions } from '../player/transport-keys';
import { createPlayerStore, type PlayerStore } from '../state/player-store';

const POLL_MS = 500;
const NO_MARKERS: readonly Marker[] = [];

const DUB_EXPORTS: { format: DubExportFormat; label: string }[] = [
  { format: 'cues_csv', label: 'ADR cue sheet (CSV)' },
  { format: 'edl', label: 'EDL (a marker per revoiced line)' },
  { format: 'fcpxml', label: 'Final Cut Pro XML (markers)' },
  { format: 'stem_wav', label: 'Stem of the revoiced lines (WAV)' },
];

/**
 * A dub for its supervisor: the current revision's waveform with the lines as regions (dragged to retime
 * them), the lines with their original and corrected text on the recording's timebase, voices and speed per
 * line, split / merge with undo and redo, review status and notes with a "lines left" filter, Revoice with
 * progress and the lines' flags, A/B of a line before and after, and the revision history with restore.
 */
export function DubView({ sessionId, dubId }: { sessionId: string; dubId: string }) {
  const { api, store: appStore } = useApp();
  const [session] = useLoad((signal) => api.getSession(sessionId, signal), [sessionId]);
  const [dub, updateDub, reloadDub] = useLoad((signal) => api.getDub(sessionId, dubId, signal), [sessionId, dubId]);
  const [lines, updateLines, reloadLines] = useLoad((signal) => api.listLines(sessionId, dubId, signal), [sessionId, dubId]);
  const [revisions, updateRevisions, reloadRevisions] = useLoad((signal) => api.listDubRevisions(sessionId, dubId, signal), [sessionId, dubId]);
  const [models] = useLoad((signal) => api.listSpeechModels(signal), []);
  const voices = useMemo(() => (models.state === 'ready' ? voiceChoices(models.value) : []), [models]);
  const [revoice, setRevoice] = useState<Revoice | null>(null);
  const [exporting, setExporting] = useState(false);
  const [sheet, setSheet] = useState(false);
  // The recording's timebase: every time the dub view shows is on it, as in the recording view.
  const timebase = useMemo(() => (session.state === 'ready' ? timebaseFromMedia(session.value.media) : null), [session]);
  // A viewer listens, exports and leaves notes: no revoicing.
  const canEdit = useMay('editor', session.state === 'ready' ? session.value.project.id : null);
  const notify = appStore.getState().notify;

  /**
   * Reads the dub, its lines and revisions again in place: the view stays on screen (a reload would show
   * "Loading lines…" and draw the waveform again from nothing); a read that fails reloads as before.
   */
  const reloadAll = useCallback(() => {
    Promise.all([api.getDub(sessionId, dubId), api.listLines(sessionId, dubId), api.listDubRevisions(sessionId, dubId)]).then(
      ([d, l, r]) => {
        updateDub(() => d);
        updateLines(() => l);
        updateRevisions(() => r);
      },
      () => {
        reloadDub();
        reloadLines();
        reloadRevisions();
      },
    );
  }, [api, sessionId, dubId, reloadDub, reloadLines, reloadRevisions]);

  /** Reads the lines and the dub's counts again in place (no loading state: the waveform stays). */
  const refresh = useCallback(async () => {
    const [l, d] = await Promise.all([api.listLines(sessionId, dubId), api.getDub(sessionId, dubId)]);
    updateLines(() => l);
    updateDub(() => d);
  }, [api, sessionId, dubId]);

  // Still preparing (the recording's audio converted, or the dub transcribed into lines): poll until ready.
  const preparing = dub.state === 'ready' && dub.value.status === 'preparing';
  usePolling(
    preparing ? dubId : null,
    async (signal) => {
      const d = await api.getDub(sessionId, dubId, signal);
      updateDub(() => d);
      if (d.status === 'preparing') return true;
      reloadAll();
      return false;
    },
    500,
  );

  // Follow a running revoice (one started here, or already running when the view opened).
  const following = revoice && (revoice.status === 'queued' || revoice.status === 'running') ? revoice.id : null;
  useEffect(() => {
    if (dub.state === 'ready' && dub.value.active_revoice && !revoice) {
      api.getRevoice(sessionId, dubId, dub.value.active_revoice).then(setRevoice, () => undefined);
    }
  }, [dub]);
  usePolling(
    following,
    async (signal) => {
      const doc = await api.getRevoice(sessionId, dubId, following!, signal);
      setRevoice(doc);
      if (doc.status === 'complete') {
        const unfit = doc.lines.filter((l) => l.render?.flags.includes('does_not_fit')).length;
        const count = `${doc.lines.length} line${doc.lines.length === 1 ? '' : 's'} revoiced${unfit ? `, ${unfit} did not fit` : ''}`;
        notify(`Revision ${doc.revision?.number} written: ${count}`, unfit ? 'error' : 'info');
      } else if (doc.status === 'failed') {
        notify(`Revoice failed: ${doc.error ?? 'unknown error'}`, 'error');
      } else {
        return true;
      }
      reloadAll();
      return false;
    },
    POLL_MS,
  );

  async function startRevoice() {
    try {
      const doc = await api.revoice(sessionId, dubId);
      if (doc.status === 'no_op') return notify('Nothing to revoice: no line has changed since it was voiced');
      setRevoice(doc);
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  }

  const edits = useDubEdits({
    api,
    sessionId,
    dubId,
    lines: lines.state === 'ready' ? lines.value : [],
    updateLines,
    refresh,
    notify,
  });

  async function setSpeakerVoice(speaker: string, ref: string | null) {
    try {
      await api.updateDub(sessionId, dubId, { voices: { [speaker]: ref } });
      reloadAll();
    } catch (error) {
      notify(messageOf(error), 'error');
      reloadDub();
    }
  }

  async function setGuide(follow: boolean) {
    try {
      await api.updateDub(sessionId, dubId, { guide: follow ? 'original' : null });
      reloadAll();
    } catch (error) {
      notify(messageOf(error), 'error');
      reloadDub();
    }
  }

  async function restore(number: number) {
    try {
      await api.restoreDubRevision(sessionId, dubId, number);
      notify(`Revision ${number} is current again`);
      reloadAll();
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  }

  async function exportAs(format: DubExportFormat) {
    setExporting(true);
    try {
      const file = await api.exportDub(sessionId, dubId, format);
      saveFile(file);
      notify(`Exported ${file.fileName}`);
    } catch (error) {
      notify(`Export failed: ${messageOf(error)}`, 'error');
    } finally {
      setExporting(false);
    }
  }

  const crumbs: { label: string; href?: string }[] = [{ label: 'Projects', href: '#/' }];
  if (session.state === 'ready') {
    crumbs.push(
      { label: session.value.project.name, href: routeHash({ name: 'project', key: session.value.project.key }) },
      { label: session.value.file_name, href: routeHash({ name: 'recording', id: sessionId }) },
    );
  }
  if (dub.state === 'ready') crumbs.push({ label: dub.value.name });

  if (dub.state !== 'ready') {
    return (
      <>
        <TopBar crumbs={crumbs} />
        <main className="page">
          {dub.state === 'loading' && <Loading label="Opening dub…" />}
          {dub.state === 'error' && <ErrorState message={dub.message} onRetry={reloadDub} />}
        </main>
      </>
    );
  }
  const running = !!following;
  const current = dub.value.current_revision;
  const currentRevision = revisions.state === 'ready' ? revisions.value.find((r) => r.number === current) : undefined;
  return (
    <>
      <TopBar crumbs={crumbs}>
        <span className="hint" data-testid="dub-timebase" title="The recording's timebase: set it in the recording view">
          {timebase ? `${timebase.frameRate}${timebase.dropFrame ? ' DF' : ''}${timebase.startTimecode ? ` from ${timebase.startTimecode}` : ''}` : 'no timebase (clock time)'}
        </span>
        <select
          value=""
          disabled={exporting || dub.value.status !== 'ready'}
          aria-label="Export the dub"
          className="dub-export"
          data-testid="dub-export"
          onChange={(e) => e.target.value && void exportAs(e.target.value as DubExportFormat)}
        >
          <option value="">{exporting ? 'Exporting…' : 'Export…'}</option>
          {DUB_EXPORTS.map((x) => (
            <option key={x.format} value={x.format}>
              {x.label}
            </option>
          ))}
        </select>
        <CueSheetControls api={api} sessionId={sessionId} dubId={dubId} disabled={dub.value.status !== 'ready'} notify={notify} onImported={reloadAll} />
        <button className="ghost" aria-label="Keyboard shortcuts" onClick={() => setSheet(true)}>
          ?
        </button>
        {canEdit && (
        <button
          className="primary"
          onClick={startRevoice}
          disabled={running || dub.value.status !== 'ready' || dub.value.lines.pending === 0}
          data-testid="revoice"
          title="Voice again every corrected line; the rest of the dub is untouched"
        >
          {running ? 'Revoicing…' : `Revoice${dub.value.lines.pending ? ` (${dub.value.lines.pending})` : ''}`}
        </button>
        )}
      </TopBar>
      <div className="editor dub-editor">
        {/* A dub from the recording shows its progress where its waveform will be; an upload being transcribed, here. */}
        {dub.value.status === 'preparing' && dub.value.source !== 'recording' && (
          <div className="transport">
            <ProgressBar value={dub.value.progress || null} label={preparingLabel(dub.value)} testId="dub-preparing" />
          </div>
        )}
        {dub.value.status === 'failed' && <ErrorState message={dub.value.error ?? 'The lines could not be derived'} />}
        {running && revoice && (
          <div className="transport" data-testid="revoice-status">
            <ProgressBar value={revoice.status === 'queued' ? null : revoice.progress} label={revoice.status === 'queued' ? 'Revoice queued' : 'Revoicing'} testId="revoice-progress" />
            <span className="hint">
              {revoice.lines.filter((l) => l.status === 'done').length} of {revoice.lines.length} lines
            </span>
          </div>
        )}
        {revisions.state === 'ready' && currentRevision && lines.state === 'ready' ? (
          <DubEditor
            canEdit={canEdit}
            key={current}
            dub={dub.value}
            revision={currentRevision}
            revisions={revisions.value}
            lines={lines.value}
            timebase={timebase}
            voices={voices}
            busy={running}
            edits={edits}
            sheetOpen={sheet}
            onShowShortcuts={() => setSheet(true)}
            onSpeakerVoice={setSpeakerVoice}
            onGuide={setGuide}
            onRestore={restore}
            onTakeChosen={reloadAll}
          />
        ) : lines.state === 'error' ? (
          <ErrorState message={lines.message} onRetry={reloadLines} />
        ) : (
          <Loading label="Loading lines…" />
        )}
      </div>
      {sheet && <DubShortcutSheet onClose={() => setSheet(false)} />}
    </>
  );
}

function DubEditor({
  dub,
  revision,
  revisions,
  lines,
  timebase,
  voices,
  busy,
  edits,
  sheetOpen,
  onShowShortcuts,
  onSpeakerVoice,
  onGuide,
  onRestore,
  onTakeChosen,
  canEdit,
}: {
  /** Whether the signed-in role may change the dub (an editor's); a viewer's lines only take notes. */
  canEdit: boolean;
  dub: Dub;
  revision: DubRevision;
  revisions: DubRevision[];
  lines: DubLine[];
  timebase: Timebase | null;
  voices: ReturnType<typeof voiceChoices>;
  busy: boolean;
  edits: DubEdits;
  sheetOpen: boolean;
  onShowShortcuts: () => void;
  onSpeakerVoice: (speaker: string, ref: string | null) => void;
  /** Revoiced lines follow the original actor (the dub's guide), or are fitted to their slots. */
  onGuide: (follow: boolean) => void;
  onRestore: (number: number) => void;
  /** A take was put in: a new revision is current. */
  onTakeChosen: () => void;
}) {
  const { api, store: appStore } = useApp();
  const notify = appStore.getState().notify;
  // Every revision is drawn on the uploaded revision's scale: scaled to its own peak, a revision that removed
  // a click would look several times louder everywhere.
  const uploaded = revisions.find((r) => r.source === 'upload')?.number ?? 1;
  // A dub from the recording has no audio of its own until it is converted: its waveform waits for that.
  const converting = dub.status === 'preparing' && dub.source === 'recording';
  const [peaks, , reloadPeaks] = useLoad(
    async (signal) => {
      if (converting) return null;
      const [current, base] = await Promise.all([
        api.getRevisionPeaks(dub.session_id, dub.id, revision.number, signal),
        revision.number === uploaded ? null : api.getRevisionPeaks(dub.session_id, dub.id, uploaded, signal),
      ]);
      return { current, fullScale: displayPeak((base ?? current).peaks) };
    },
    [dub.id, revision.number, uploaded, converting],
  );
  const [player] = useState<PlayerStore>(() => createPlayerStore(dub.format.duration));
  const [transport, setTransport] = useState<Transport | null>(null);
  const onTransport = useCallback((t: Transport | null) => setTransport(t), []);
  const [ab, setAb] = useState<{ lineId: number; side: 'A' | 'B'; revision: number } | null>(null);
  const abHost = useRef<HTMLDivElement>(null);
  const abPlayer = useRef<AbPlayer | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [notesOpen, setNotesOpen] = useState<number | null>(null);
  const [leftOnly, setLeftOnly] = useState(false);
  useEffect(() => {
    const playerInstance = new AbPlayer((playing) => {
      if (!playing) setAb(null);
    });
    abPlayer.current = playerInstance;
    abHost.current?.appendChild(playerInstance.element);
    return () => {
      playerInstance.destroy();
      playerInstance.element.remove();
    };
  }, []);

  // "Lines left": the service's own filter (`?left=true`), read again whenever the lines change; the rows
  // shown until the first answer are none, later the previous answer's (no flicker on each edit).
  const [leftIds, setLeftIds] = useState<Set<number> | null>(null);
  useEffect(() => {
    if (!leftOnly) return setLeftIds(null);
    const controller = new AbortController();
    api.listDubLines(dub.session_id, dub.id, { left: true }, controller.signal).then(
      (list) => setLeftIds(new Set(list.map((l) => l.id))),
      (error: unknown) => !controller.signal.aborted && notify(`Lines left: ${messageOf(error)}`, 'error'),
    );
    return () => controller.abort();
  }, [leftOnly, lines, api, dub.session_id, dub.id, notify]);
  const shown = useMemo(() => (!leftOnly ? lines : leftIds ? lines.filter((l) => leftIds.has(l.id)) : null), [leftOnly, leftIds, lines]);

  // Lines as waveform regions: corrected lines (a revoice would voice them) stand out, the selected one most.
  const segments = useMemo<TranscriptSegment[]>(() => lines.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: l.text, words: [] })), [lines]);
  const pending = useMemo(() => new Set(lines.filter((l) => l.needs_revoice).map((l) => l.id)), [lines]);
  const regionColor = useCallback(
    (s: TranscriptSegment) => (s.id === selected ? 'rgba(255, 204, 0, 0.30)' : pending.has(s.id) ? 'rgba(255, 255, 255, 0.28)' : speakerColor(s.speaker, 0.2)),
    [pending, selected],
  );

  const select = useCallback(
    (line: DubLine | undefined, seek = true) => {
      if (!line) return;
      setSelected(line.id);
      if (seek) transport?.seek(line.start);
      requestAnimationFrame(() => document.querySelector(`[data-testid=dub-line][data-line="${line.id}"]`)?.scrollIntoView({ block: 'nearest' }));
    },
    [transport],
  );
  /** The line an action is about: the selected one, else the one under the playhead. */
  const target = useCallback(() => lines.find((l) => l.id === selected) ?? lineAt(lines, player.getState().currentTime), [lines, selected, player]);

  const playAb = useCallback(
    (line: DubLine, side: 'A' | 'B') => {
      const { before, after } = abRevisions(line, revisions, revision.number);
      const number = side === 'A' ? before : after;
      const targetRevision = revisions.find((r) => r.number === number);
      if (!targetRevision || !abPlayer.current) return;
      transport?.stop();
      setAb({ lineId: line.id, side, revision: number });
      abPlayer.current.play({ url: targetRevision.audio.url, ...abWindow(line) }).catch((error: unknown) => {
        setAb(null);
        notify(messageOf(error), 'error');
      });
    },
    [revisions, revision.number, transport, notify],
  );

  // Takes: auditioned on the A/B player, the line's row not marked.
  const playTake = useCallback(
    async (request: AbRequest) => {
      if (!abPlayer.current) return;
      transport?.stop();
      setAb(null);
      await abPlayer.current.play(request);
    },
    [transport],
  );

  const approveAndNext = useCallback(async () => {
    const line = target();
    if (!line) return notify('Select a line to approve (click it, or ↓ / ↑)');
    const saved = await edits.review(line, 'approved');
    if (!saved) return;
    const next = nextLeft(
      lines.map((l) => (l.id === saved.id ? saved : l)),
      saved.id,
    );
    if (next) select(next);
    else notify('Every line is approved');
  }, [target, edits, lines, select, notify]);

  // The recording view's keys (J/K/L, frame and second steps, I/O, Home/End, zoom, Space) and the dub's own.
  useEffect(() => {
    if (!transport || sheetOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (isTypingTarget(e.target as HTMLElement)) return;
      const dubAction = dubActionForKey(e);
      if (dubAction) {
        e.preventDefault();
        return runDub(dubAction);
      }
      const action = actionForKey(e);
      const tag = (e.target as HTMLElement | null)?.tagName;
      // Space and Enter on a focused button are that button's.
      if ((action === 'play-pause' || action === 'edit-word') && (tag === 'BUTTON' || tag === 'A')) return;
      const run: Partial<Record<EditorAction, () => void>> = {
        ...transportActions(transport),
        undo: () => void edits.undo(),
        redo: () => void edits.redo(),
        'show-shortcuts': onShowShortcuts,
        close: () => setSelected(null),
      };
      const fn = action ? run[action] : undefined;
      if (!fn) return;
      e.preventDefault();
      fn();
    };
    const runDub = (action: DubAction) => {
      const line = target();
      if (action === 'next-line' || action === 'previous-line') {
        const from = lines.find((l) => l.id === selected) ?? lineAt(lines, player.getState().currentTime);
        const order = [...lines].sort((a, b) => a.start - b.start);
        const t = player.getState().currentTime;
        if (!from) return select(action === 'next-line' ? order.find((l) => l.start > t) ?? order[0] : [...order].reverse().find((l) => l.end <= t) ?? order.at(-1));
        return select(neighbour(lines, from.id, action === 'next-line' ? 1 : -1) ?? from);
      }
      if (action === 'approve-next') return void approveAndNext();
      if (action === 'split') return void edits.splitAt(player.getState().currentTime);
      if (!line) return notify('Select a line first (click it, or ↓ / ↑)');
      if (action === 'merge') return void edits.mergeWithNext(line);
      if (action === 'needs-changes') {
        void edits.review(line, 'needs_changes');
        setNotesOpen(line.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [transport, sheetOpen, edits, lines, selected, player, target, select, approveAndNext, onShowShortcuts, notify]);

  const onRegionChange = useCallback(
    (id: number, times: { start: number; end: number }, side: 'start' | 'end' | undefined) => {
      setSelected(id);
      void edits.retime(id, times, side, dub.format.duration, timebase);
    },
    [edits, dub.format.duration, timebase],
  );

  const speakers = dub.speakers;
  const unfit = lines.filter((l) => l.state === 'voiced' && l.render?.flags.includes('does_not_fit'));
  const rooms = useMemo(() => {
    const plans = new Map<number, RoomPlan>();
    for (const l of unfit) {
      const plan = makeRoom(l, lines, dub.format.duration);
      if (plan) plans.set(l.id, plan);
    }
    return plans;
  }, [lines, dub.format.duration]);
  const selectedLine = lines.find((l) => l.id === selected);
  const review = dub.review;
  // Lines are numbered by position in time (ids are the API's and stop counting up after a split).
  const numbers = useMemo(() => lineNumbers(lines), [lines]);
  const no = (id: number) => numbers.get(id) ?? id;
  // The bar counts the lines as they are now: a line voiced by the last revoice is no longer "corrected".
  const voicedCount = lines.filter((l) => l.state === 'voiced').length;
  const pendingCount = lines.filter((l) => l.needs_revoice).length;
  return (
    <>
      <div className="transport">
        <DubReadout store={player} timebase={timebase} />
        <span className="hint" data-testid="playing-revision">
          Revision {revision.number}
          {revision.number === 1 ? (dub.source === 'recording' ? ' (the recording)' : ' (as uploaded)') : ''}
        </span>
        <div className="spacer" />
        <div className="row dub-edit-tools" role="toolbar" aria-label="Line edits">
          <button onClick={() => void edits.splitAt(player.getState().currentTime)} disabled={edits.busy || dub.status !== 'ready'} data-testid="split-line" title="Split the line under the playhead at the playhead (S)">
            Split
          </button>
          <button
            onClick={() => (selectedLine ? void edits.mergeWithNext(selectedLine) : notify('Select a line first (click it, or ↓ / ↑)'))}
            disabled={edits.busy || !selectedLine}
            data-testid="merge-line"
            title="Merge the selected line with the next one (M)"
          >
            Merge with next
          </button>
          <button onClick={() => void edits.undo()} disabled={edits.busy || dub.status !== 'ready'} data-testid="undo-edit" title="Undo the last line edit (Ctrl+Z)">
            Undo
          </button>
          <button onClick={() => void edits.redo()} disabled={edits.busy || dub.status !== 'ready'} data-testid="redo-edit" title="Redo (Ctrl+Shift+Z)">
            Redo
          </button>
        </div>
        <ZoomControls transport={transport} />
        <button className="primary" onClick={() => transport?.playPause()} disabled={!transport} data-testid="play">
          <PlayLabel store={player} />
        </button>
      </div>
      <div>
        {(peaks.state === 'loading' || converting) && (
          <div className="wave-panel" style={{ height: 232 }} data-testid="wave-preparing">
            {converting ? (
              <div className="state">
                <ProgressBar value={dub.progress || null} label={preparingLabel(dub)} />
                <div>The waveform appears when the recording&rsquo;s audio is converted; the lines are below.</div>
              </div>
            ) : (
              <Loading label="Loading waveform…" />
            )}
          </div>
        )}
        {peaks.state === 'error' && <ErrorState message={peaks.message} onRetry={reloadPeaks} />}
        {peaks.state === 'ready' && peaks.value && (
          <Waveform
            peaks={peaks.value.current}
            displayPeak={peaks.value.fullScale}
            audioUrl={revision.audio.url}
            segments={segments}
            timebase={timebase}
            store={player}
            markers={NO_MARKERS}
            onTransport={onTransport}
            onAudioError={reloadPeaks}
            regionColor={regionColor}
            onLineClick={(id) => select(lines.find((l) => l.id === id), false)}
            onRegionChange={busy || dub.status !== 'ready' ? undefined : onRegionChange}
          />
        )}
      </div>
      <div className="lower">
        <section className="transcript-panel" aria-label="Lines" data-ab-line={ab?.lineId ?? ''} data-ab-revision={ab?.revision ?? ''} data-testid="lines-panel">
          <div className="transcript-tools">
            <span className="hint" data-testid="line-count">
              {dub.status === 'preparing' && lines.length === 0
                ? 'Lines being derived'
                : `${lines.length} lines · ${voicedCount} voiced · ${pendingCount} to revoice`}
            </span>
            {dub.status === 'ready' && (
              <span className="hint review-counts" data-testid="review-counts" data-todo={review.todo} data-needs-changes={review.needs_changes} data-approved={review.approved} data-left={review.left}>
                <span className="badge review-approved">{review.approved} approved</span> <span className="badge review-needs_changes">{review.needs_changes} needs changes</span>{' '}
                <span className="badge review-todo">{review.todo} to review</span>
              </span>
            )}
            <label className="hint left-filter">
              <input type="checkbox" checked={leftOnly} onChange={(e) => setLeftOnly(e.target.checked)} data-testid="filter-left" /> Only lines left ({review.left})
            </label>
            {unfit.length > 0 && (
              <span className="field-error" data-testid="unfit-summary">
                {unfit.length} line{unfit.length === 1 ? '' : 's'} did not fit: shorten the text
              </span>
            )}
          </div>
          <div className="transcript-scroll">
            {dub.status === 'preparing' && lines.length === 0 ? (
              // Still transcribing the dub: its lines are on their way, not missing.
              <div className="state" data-testid="lines-preparing">
                <div className="title">Preparing the lines</div>
                <ProgressBar value={dub.progress || null} label={dub.source === 'recording' ? 'Preparing the dub' : 'Transcribing the dub'} />
                <div>The lines appear here when the dub {dub.source === 'recording' ? 'is ready' : 'has been transcribed'}.</div>
              </div>
            ) : dub.status === 'failed' ? (
              <Empty title="No lines">The lines could not be derived: {dub.error ?? 'the transcription failed'}.</Empty>
            ) : lines.length === 0 ? (
              <Empty title="No lines">The dub has no lines (no speech was found in it).</Empty>
            ) : shown === null ? (
              <Loading label="Loading the lines left…" />
            ) : shown.length === 0 ? (
              <Empty title="Nothing left">Every line is approved.</Empty>
            ) : (
              <DubLines
                lines={shown}
                voices={voices}
                timebase={timebase}
                playing={ab}
                selected={selected}
                notesOpen={notesOpen}
                disabled={busy || dub.status !== 'ready'}
                readOnly={!canEdit}
                edits={edits}
                rooms={rooms}
                numbers={numbers}
                onSelect={(line) => select(line)}
                onNotes={(id) => setNotesOpen((open) => (open === id ? null : id))}
                onAb={playAb}
              />
            )}
          </div>
          <div ref={abHost} hidden />
        </section>
        <aside className="side">
          <div>
            <h4>Dub</h4>
            <dl className="kv">
              <dt>Length</dt>
              <dd>{formatDuration(dub.format.duration)}</dd>
              <dt>Format</dt>
              <dd>
                {dub.format.sample_rate / 1000} kHz {dub.format.channels} ch {dub.format.sample_format}
              </dd>
              <dt>Stem</dt>
              <dd>{dub.background ? 'music and effects' : 'none (full mix)'}</dd>
              <dt>Timebase</dt>
              <dd>{timebase ? `${timebase.frameRate} ${timebase.dropFrame ? 'DF' : 'NDF'}` : 'none'}</dd>
            </dl>
          </div>
          <div>
            <h4>Voices</h4>
            {speakers.map((s) => (
              <label key={s} className="speaker-voice">
                <span>
                  <span className="swatch" style={{ background: speakerColor(s) }} />
                  {s}
                </span>
                <select value={dub.voices[s] ?? ''} disabled={busy} onChange={(e) => onSpeakerVoice(s, e.target.value || null)} data-testid={`speaker-voice-${s}`}>
                  <option value="">Default ({dub.default_voice ?? voices[0]?.ref ?? 'none'})</option>
                  {voices.map((v) => (
                    <option key={v.ref} value={v.ref}>
                      {v.label}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
          <label className="speaker-voice" title="Revoiced lines follow the original actor: each word where the original's is, the pitch moved to the original's">
            <span>Follow the actor's timing and pitch</span>
            <input type="checkbox" checked={dub.guide === 'original'} disabled={busy} onChange={(e) => onGuide(e.target.checked)} data-testid="dub-guide" />
          </label>
          {selectedLine && dub.status === 'ready' && (
            <DubTakes
              api={api}
              sessionId={dub.session_id}
              dubId={dub.id}
              line={selectedLine}
              number={no(selectedLine.id)}
              revision={revision}
              voices={voices}
              disabled={busy}
              play={playTake}
              notify={notify}
              onChosen={onTakeChosen}
            />
          )}
          <div data-testid="revisions">
            <h4>Revisions</h4>
            <ul className="plain-list">
              {[...revisions].reverse().map((r) => (
                <li key={r.number} data-testid="revision" data-revision={r.number} data-current={r.current ? 'true' : 'false'}>
                  <b>r{r.number}</b> <span className="hint">{r.source === 'upload' ? (dub.source === 'recording' ? 'the recording' : 'as uploaded') : r.source === 'take' ? `take in for line ${revisedLines(r.lines_revoiced, numbers)}` : `lines ${revisedLines(r.lines_revoiced, numbers)}`}</span>
                  <div className="row">
                    {r.current ? (
                      <span className="badge complete">current</span>
                    ) : (
                      <button onClick={() => onRestore(r.number)} disabled={busy} data-testid="restore">
                        Restore
                      </button>
                    )}
                    <a href={r.audio.download_url} download>
                      Download
                    </a>
                    <StemsDownload sessionId={dub.session_id} dubId={dub.id} revision={r.number} />
                  </div>
                </li>
              ))}
            </ul>
          </div>
          {unfit.length > 0 && (
            <div className="hint">
              {unfit.map((l) => (
                <div key={l.id}>
                  Line {no(l.id)}: {unfitLabel(l.render!)}
                </div>
              ))}
            </div>
          )}
          <div className="hint">
            Press <kbd>?</kbd> for keyboard shortcuts.
          </div>
        </aside>
      </div>
    </>
  );
}

function DubReadout({ store, timebase }: { store: PlayerStore; timebase: Timebase | null }) {
  const t = useStore(store, (s) => s.currentTime);
  const duration = useStore(store, (s) => s.duration);
  const rate = useStore(store, (s) => s.rate);
  return (
    <>
      <span className="readout" data-testid="readout" aria-label="Current time">
        {formatReadout(t, timebase)}
      </span>
      <span className="shuttle" data-testid="shuttle">
        {shuttleLabel(rate)}
      </span>
      <span className="readout-small" data-testid="readout-length" title="The dub's length">
        of <b>{formatLength(duration, timebase)}</b>
      </span>
    </>
  );
}

/** The lines a revision voiced, by their numbers now; a line since merged into another has none ("a merged line"). */
function revisedLines(ids: readonly number[], numbers: ReadonlyMap<number, number>): string {
  const shown = ids.map((id) => numbers.get(id)).filter((n) => n !== undefined).sort((a, b) => a - b);
  const gone = ids.length - shown.length;
  return [...shown.map(String), ...(gone ? [gone === 1 ? 'a line merged since' : `${gone} lines merged since`] : [])].join(', ');
}
