import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { messageOf } from '../api/errors';
import type { Dub, DubLine, DubRevision, Revoice, TranscriptSegment } from '../api/types';
import { useApp } from '../app-context';
import { DubLines } from '../components/DubLines';
import { PlayLabel } from '../components/PlayLabel';
import { ProgressBar } from '../components/ProgressBar';
import { ErrorState, Empty, Loading } from '../components/States';
import { TopBar } from '../components/TopBar';
import { Waveform } from '../components/Waveform';
import { ZoomControls } from '../components/ZoomControls';
import { useLoad, usePolling } from '../hooks';
import { displayPeak } from '../lib/display-scale';
import { abRevisions, abWindow, unfitLabel, voiceChoices } from '../lib/dub';
import { formatDuration, speakerColor } from '../lib/format';
import { routeHash } from '../lib/route';
import { actionForKey, isTypingTarget, type EditorAction } from '../lib/shortcuts';
import { formatReadout } from '../lib/timecode';
import type { Marker } from '../markers/model';
import { AbPlayer } from '../player/ab-player';
import type { Transport } from '../player/transport';
import { createPlayerStore, type PlayerStore } from '../state/player-store';

const POLL_MS = 500;
const NO_MARKERS: readonly Marker[] = [];

/**
 * A dub for its supervisor: the current revision's waveform with the lines as regions, the lines with
 * their original and corrected text, voices per line and per speaker, Revoice with progress and the
 * lines' flags, A/B of a line before and after, and the revision history with restore.
 */
export function DubView({ sessionId, dubId }: { sessionId: string; dubId: string }) {
  const { api, store: appStore } = useApp();
  const [session] = useLoad((signal) => api.getSession(sessionId, signal), [sessionId]);
  const [dub, updateDub, reloadDub] = useLoad((signal) => api.getDub(sessionId, dubId, signal), [sessionId, dubId]);
  const [lines, updateLines, reloadLines] = useLoad((signal) => api.listLines(sessionId, dubId, signal), [sessionId, dubId]);
  const [revisions, , reloadRevisions] = useLoad((signal) => api.listDubRevisions(sessionId, dubId, signal), [sessionId, dubId]);
  const [models] = useLoad((signal) => api.listSpeechModels(signal), []);
  const voices = useMemo(() => (models.state === 'ready' ? voiceChoices(models.value) : []), [models]);
  const [revoice, setRevoice] = useState<Revoice | null>(null);
  const notify = appStore.getState().notify;

  const reloadAll = useCallback(() => {
    reloadDub();
    reloadLines();
    reloadRevisions();
  }, [reloadDub, reloadLines, reloadRevisions]);

  // Lines still being derived (the dub is being transcribed): poll until ready.
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
    1000,
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

  const saveLine = useCallback(
    async (line: DubLine, patch: { text?: string; voice?: string | null }) => {
      try {
        const saved = await api.updateLine(sessionId, dubId, line.id, patch);
        updateLines((list) => list.map((l) => (l.id === saved.id ? saved : l)));
        reloadDub();
        return true;
      } catch (error) {
        notify(messageOf(error), 'error');
        return false;
      }
    },
    [api, sessionId, dubId],
  );

  async function setSpeakerVoice(speaker: string, ref: string | null) {
    try {
      await api.updateDub(sessionId, dubId, { voices: { [speaker]: ref } });
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
        <button
          className="primary"
          onClick={startRevoice}
          disabled={running || dub.value.status !== 'ready' || dub.value.lines.pending === 0}
          data-testid="revoice"
          title="Voice again every corrected line; the rest of the dub is untouched"
        >
          {running ? 'Revoicing…' : `Revoice${dub.value.lines.pending ? ` (${dub.value.lines.pending})` : ''}`}
        </button>
      </TopBar>
      <div className="editor dub-editor">
        {dub.value.status === 'preparing' && (
          <div className="transport">
            <ProgressBar value={dub.value.progress || null} label="Deriving lines (transcribing the dub)" testId="dub-preparing" />
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
            key={current}
            dub={dub.value}
            revision={currentRevision}
            revisions={revisions.value}
            lines={lines.value}
            voices={voices}
            busy={running}
            onSaveLine={saveLine}
            onSpeakerVoice={setSpeakerVoice}
            onRestore={restore}
          />
        ) : lines.state === 'error' ? (
          <ErrorState message={lines.message} onRetry={reloadLines} />
        ) : (
          <Loading label="Loading lines…" />
        )}
      </div>
    </>
  );
}

function DubEditor({
  dub,
  revision,
  revisions,
  lines,
  voices,
  busy,
  onSaveLine,
  onSpeakerVoice,
  onRestore,
}: {
  dub: Dub;
  revision: DubRevision;
  revisions: DubRevision[];
  lines: DubLine[];
  voices: ReturnType<typeof voiceChoices>;
  busy: boolean;
  onSaveLine: (line: DubLine, patch: { text?: string; voice?: string | null }) => Promise<boolean>;
  onSpeakerVoice: (speaker: string, ref: string | null) => void;
  onRestore: (number: number) => void;
}) {
  const { api, store: appStore } = useApp();
  // Every revision is drawn on the uploaded revision's scale: scaled to its own peak, a revision that removed
  // a click would look several times louder everywhere.
  const uploaded = revisions.find((r) => r.source === 'upload')?.number ?? 1;
  const [peaks, , reloadPeaks] = useLoad(
    async (signal) => {
      const [current, base] = await Promise.all([
        api.getRevisionPeaks(dub.session_id, dub.id, revision.number, signal),
        revision.number === uploaded ? null : api.getRevisionPeaks(dub.session_id, dub.id, uploaded, signal),
      ]);
      return { current, fullScale: displayPeak((base ?? current).peaks) };
    },
    [dub.id, revision.number, uploaded],
  );
  const [player] = useState<PlayerStore>(() => createPlayerStore(dub.format.duration));
  const [transport, setTransport] = useState<Transport | null>(null);
  const onTransport = useCallback((t: Transport | null) => setTransport(t), []);
  const [ab, setAb] = useState<{ lineId: number; side: 'A' | 'B'; revision: number } | null>(null);
  const abHost = useRef<HTMLDivElement>(null);
  const abPlayer = useRef<AbPlayer | null>(null);
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

  // Lines as waveform regions: corrected lines (a revoice would voice them) stand out.
  const segments = useMemo<TranscriptSegment[]>(() => lines.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: l.text, words: [] })), [lines]);
  const pending = useMemo(() => new Set(lines.filter((l) => l.needs_revoice).map((l) => l.id)), [lines]);
  const regionColor = useCallback((s: TranscriptSegment) => (pending.has(s.id) ? 'rgba(255, 255, 255, 0.28)' : speakerColor(s.speaker, 0.2)), [pending]);

  const playAb = useCallback(
    (line: DubLine, side: 'A' | 'B') => {
      const { before, after } = abRevisions(line, revisions, revision.number);
      const number = side === 'A' ? before : after;
      const target = revisions.find((r) => r.number === number);
      if (!target || !abPlayer.current) return;
      transport?.stop();
      setAb({ lineId: line.id, side, revision: number });
      abPlayer.current.play({ url: target.audio.url, ...abWindow(line) }).catch((error: unknown) => {
        setAb(null);
        appStore.getState().notify(messageOf(error), 'error');
      });
    },
    [revisions, revision.number, transport, appStore],
  );

  // The editor's zoom and play keys, as in the recording view (never while typing a line).
  useEffect(() => {
    if (!transport) return;
    const onKey = (e: KeyboardEvent) => {
      if (isTypingTarget(e.target as HTMLElement)) return;
      const action = actionForKey(e);
      const run: Partial<Record<EditorAction, () => void>> = {
        'play-pause': () => transport.playPause(),
        'zoom-in': () => transport.zoomIn(),
        'zoom-out': () => transport.zoomOut(),
        'zoom-fit': () => transport.setZoom(0),
      };
      const fn = action ? run[action] : undefined;
      if (!fn) return;
      e.preventDefault();
      fn();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [transport]);

  const speakers = dub.speakers;
  const unfit = lines.filter((l) => l.state === 'voiced' && l.render?.flags.includes('does_not_fit'));
  return (
    <>
      <div className="transport">
        <DubReadout store={player} />
        <span className="hint" data-testid="playing-revision">
          Revision {revision.number}
          {revision.number === 1 ? ' (as uploaded)' : ''}
        </span>
        <div className="spacer" />
        <ZoomControls transport={transport} />
        <button className="primary" onClick={() => transport?.playPause()} disabled={!transport} data-testid="play">
          <PlayLabel store={player} />
        </button>
      </div>
      <div>
        {peaks.state === 'loading' && (
          <div className="wave-panel" style={{ height: 232 }}>
            <Loading label="Loading waveform…" />
          </div>
        )}
        {peaks.state === 'error' && <ErrorState message={peaks.message} onRetry={reloadPeaks} />}
        {peaks.state === 'ready' && (
          <Waveform
            peaks={peaks.value.current}
            displayPeak={peaks.value.fullScale}
            audioUrl={revision.audio.url}
            segments={segments}
            timebase={null}
            store={player}
            markers={NO_MARKERS}
            onTransport={onTransport}
            onAudioError={reloadPeaks}
            regionColor={regionColor}
          />
        )}
      </div>
      <div className="lower">
        <section className="transcript-panel" aria-label="Lines" data-ab-line={ab?.lineId ?? ''} data-ab-revision={ab?.revision ?? ''} data-testid="lines-panel">
          <div className="transcript-tools">
            <span className="hint" data-testid="line-count">
              {dub.status === 'preparing'
                ? 'Lines being derived'
                : `${lines.length} lines · ${dub.lines.corrected} corrected · ${dub.lines.pending} to revoice`}
            </span>
            {unfit.length > 0 && (
              <span className="field-error" data-testid="unfit-summary">
                {unfit.length} line{unfit.length === 1 ? '' : 's'} did not fit: shorten the text
              </span>
            )}
          </div>
          <div className="transcript-scroll">
            {dub.status === 'preparing' ? (
              // Still transcribing the dub: its lines are on their way, not missing.
              <div className="state" data-testid="lines-preparing">
                <div className="title">Preparing the lines</div>
                <ProgressBar value={dub.progress || null} label="Transcribing the dub" />
                <div>The lines appear here when the dub has been transcribed.</div>
              </div>
            ) : dub.status === 'failed' ? (
              <Empty title="No lines">The lines could not be derived: {dub.error ?? 'the transcription failed'}.</Empty>
            ) : lines.length === 0 ? (
              <Empty title="No lines">The dub has no lines (no speech was found in it).</Empty>
            ) : (
              <DubLines lines={lines} voices={voices} playing={ab} disabled={busy} onSave={onSaveLine} onSeek={(t) => transport?.seek(t)} onAb={playAb} />
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
          <div data-testid="revisions">
            <h4>Revisions</h4>
            <ul className="plain-list">
              {[...revisions].reverse().map((r) => (
                <li key={r.number} data-testid="revision" data-revision={r.number} data-current={r.current ? 'true' : 'false'}>
                  <b>r{r.number}</b> <span className="hint">{r.source === 'upload' ? 'as uploaded' : `lines ${r.lines_revoiced.join(', ')}`}</span>
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
                  </div>
                </li>
              ))}
            </ul>
          </div>
          {unfit.length > 0 && (
            <div className="hint">
              {unfit.map((l) => (
                <div key={l.id}>
                  Line {l.id}: {unfitLabel(l.render!)}
                </div>
              ))}
            </div>
          )}
        </aside>
      </div>
    </>
  );
}

function DubReadout({ store }: { store: PlayerStore }) {
  const t = useStore(store, (s) => s.currentTime);
  const duration = useStore(store, (s) => s.duration);
  return (
    <>
      <span className="readout" data-testid="readout" aria-label="Current time">
        {formatReadout(t, null)}
      </span>
      <span className="readout-small">
        of <b>{formatReadout(duration, null)}</b>
      </span>
    </>
  );
}
