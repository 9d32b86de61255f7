import { useCallback, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { DubTake } from '../api/dub-workflow';
import { messageOf } from '../api/errors';
import type { DubLine, DubRevision } from '../api/types';
import type { VoiceChoice } from '../lib/dub';
import type { AbRequest } from '../player/ab-player';
import { recordLine } from '../lib/record-line';

const SPEED_LABEL = (speed: number | null) => (speed === null ? 'fit to slot' : `${speed}×`);

/**
 * Takes of the selected line: render several (the line's voice, or it and another, at the
 * line's speed, 0.9× and 1.1×…), audition each against the original over the same region (A/B), and put
 * one in: a new revision with the take as the line's audio.
 */
export function DubTakes({
  api,
  sessionId,
  dubId,
  line,
  number,
  revision,
  voices,
  disabled,
  play,
  notify,
  onChosen,
}: {
  api: ApiClient;
  sessionId: string;
  dubId: string;
  line: DubLine;
  /** The line's number as the table shows it (its position in time). */
  number: number;
  /** The current revision: the "original" side of A/B, over the take's region. */
  revision: DubRevision;
  voices: VoiceChoice[];
  disabled: boolean;
  play(request: AbRequest): Promise<void>;
  notify(text: string, kind?: 'info' | 'error'): void;
  onChosen(): void;
}) {
  const [takes, setTakes] = useState<DubTake[] | null>(null);
  const [count, setCount] = useState(3);
  const [alsoVoice, setAlsoVoice] = useState('');
  const [working, setWorking] = useState<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  const [preRoll, setPreRoll] = useState(2);
  const [guide, setGuide] = useState(true);

  useEffect(() => {
    const controller = new AbortController();
    setTakes(null);
    api.listDubTakes(sessionId, dubId, line.id, controller.signal).then(
      (list) => setTakes(list),
      (error: unknown) => !controller.signal.aborted && notify(`Takes of line ${number}: ${messageOf(error)}`, 'error'),
    );
    return () => controller.abort();
  }, [api, sessionId, dubId, line.id, line.revision, number, notify]);

  const render = useCallback(async () => {
    setWorking('render');
    try {
      const own = line.effective_voice;
      const voiceList = alsoVoice && own && alsoVoice !== own ? [own, alsoVoice] : undefined;
      let list = await api.renderDubTakes(sessionId, dubId, line.id, { count, ...(voiceList ? { voices: voiceList } : {}) });
      // Still rendering after the request's wait: follow them.
      for (let i = 0; i < 600 && list.some((t) => t.status === 'queued' || t.status === 'rendering'); i++) {
        await new Promise((r) => setTimeout(r, 1000));
        list = await api.listDubTakes(sessionId, dubId, line.id);
      }
      setTakes(await api.listDubTakes(sessionId, dubId, line.id));
      const failed = list.filter((t) => t.status === 'failed');
      notify(failed.length ? `${list.length - failed.length} takes of line ${number} rendered; ${failed.length} failed: ${failed[0]!.error}` : `${list.length} takes of line ${number} rendered`);
    } catch (error) {
      notify(`Takes of line ${number}: ${messageOf(error)}`, 'error');
    } finally {
      setWorking(null);
    }
  }, [api, sessionId, dubId, line.id, line.effective_voice, count, alsoVoice, number, notify]);

  const record = useCallback(async () => {
    setWorking('record');
    try {
      const guideSpan = guide ? { url: revision.audio.url, start: line.original_start, end: line.original_end } : null;
      const recording = await recordLine({ preRoll, slotSeconds: line.end - line.start, guide: guideSpan });
      await api.recordDubTake(sessionId, dubId, line.id, recording, preRoll);
      setTakes(await api.listDubTakes(sessionId, dubId, line.id));
      notify(`Line ${number} recorded: the take is ready to audition`);
    } catch (error) {
      notify(`Recording line ${number}: ${messageOf(error)}`, 'error');
    } finally {
      setWorking(null);
    }
  }, [api, sessionId, dubId, line.id, line.start, line.end, line.original_start, line.original_end, revision.audio.url, preRoll, guide, number, notify]);

  const audition = useCallback(
    (key: string, request: AbRequest) => {
      setPlaying(key);
      play(request)
        .catch((error: unknown) => notify(messageOf(error), 'error'))
        .finally(() => setPlaying((p) => (p === key ? null : p)));
    },
    [play, notify],
  );

  const choose = useCallback(
    async (take: DubTake) => {
      setWorking(take.id);
      try {
        const { revision: made } = await api.chooseDubTake(sessionId, dubId, line.id, take.id);
        notify(`Take ${take.number} is in: revision ${made.number} carries it for line ${number}`);
        onChosen();
      } catch (error) {
        notify(`Take ${take.number} of line ${number}: ${messageOf(error)}`, 'error');
        setTakes(await api.listDubTakes(sessionId, dubId, line.id).catch(() => takes));
      } finally {
        setWorking(null);
      }
    },
    [api, sessionId, dubId, line.id, number, notify, onChosen, takes],
  );

  const busy = disabled || working !== null;
  return (
    <div data-testid="dub-takes" data-line={line.id}>
      <h4>Takes · line {number}</h4>
      {/* The voice choice on a row of its own, as wide as the panel: beside the count and the button it was cut. */}
      <select className="takes-voice" value={alsoVoice} disabled={busy} onChange={(e) => setAlsoVoice(e.target.value)} data-testid="takes-voice" title="Another voice to try beside the line's">
          <option value="">its voice only</option>
          {voices
            .filter((v) => v.ref !== line.effective_voice)
            .map((v) => (
              <option key={v.ref} value={v.ref}>
                and {v.short}
              </option>
            ))}
      </select>
      <div className="row">
        <label>
          Takes{' '}
          <select value={count} disabled={busy} onChange={(e) => setCount(Number(e.target.value))} data-testid="takes-count">
            {[1, 2, 3, 4, 5].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button onClick={() => void render()} disabled={busy} data-testid="render-takes">
          {working === 'render' ? 'Rendering…' : 'Render takes'}
        </button>
      </div>
      {/* Recording from the microphone: a count-in (pre-roll), the original line as a guide (headphones assumed). */}
      <div className="row">
        <label title="Seconds of count-in before the line">
          Pre-roll{' '}
          <select value={preRoll} disabled={busy} onChange={(e) => setPreRoll(Number(e.target.value))} data-testid="record-preroll">
            {[0, 1, 2, 3, 4].map((n) => (
              <option key={n} value={n}>
                {n} s
              </option>
            ))}
          </select>
        </label>
        <label title="Play the original line as a guide while recording">
          <input type="checkbox" checked={guide} disabled={busy} onChange={(e) => setGuide(e.target.checked)} data-testid="record-guide" /> guide
        </label>
        <button onClick={() => void record()} disabled={busy} data-testid="record-take">
          {working === 'record' ? 'Recording…' : 'Record'}
        </button>
      </div>
      {takes === null ? (
        <div className="hint">Loading takes…</div>
      ) : takes.length === 0 ? (
        <div className="hint">No takes yet: render some to audition against the original and pick one.</div>
      ) : (
        <ul className="plain-list">
          {takes.map((take) => {
            const region = take.render?.region;
            return (
              <li key={take.id} data-testid="take" data-take={take.number} data-source={take.source} data-status={take.status} data-chosen={take.chosen ? 'true' : 'false'}>
                <b>Take {take.number}</b>{' '}
                <span className="hint">
                  {take.source === 'recorded' ? 'recorded' : `${take.voice} · ${SPEED_LABEL(take.speed)}`}
                  {take.render?.flags.includes('does_not_fit') ? ` · cut ${take.render.overflow.toFixed(2)} s` : ''}
                  {take.stale ? ' · stale (the line changed)' : ''}
                  {take.status === 'failed' ? ` · failed: ${take.error}` : take.status !== 'ready' ? ` · ${take.status}` : ''}
                </span>
                {take.status === 'ready' && region && take.audio && (
                  <div className="row">
                    <button
                      onClick={() => audition(`A${take.id}`, { url: revision.audio.url, start: region.start, end: region.end })}
                      data-testid="take-original"
                      data-playing={playing === `A${take.id}` ? 'true' : 'false'}
                      title="The current revision over the take's region"
                    >
                      ▶ A original
                    </button>
                    <button
                      onClick={() => audition(`B${take.id}`, { url: take.audio!.url, start: 0, end: region.end - region.start })}
                      data-testid="take-play"
                      data-playing={playing === `B${take.id}` ? 'true' : 'false'}
                    >
                      ▶ B take {take.number}
                    </button>
                    {take.chosen ? (
                      <span className="badge complete">in</span>
                    ) : (
                      <button onClick={() => void choose(take)} disabled={busy || take.stale} data-testid="take-choose">
                        Use this take
                      </button>
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
