import { useEffect, useState } from 'react';
import { messageOf } from '../api/errors';
import type { WhisperModel, WhisperModelList } from '../api/whisper-models';
import { useApp } from '../app-context';
import { useLoad } from '../hooks';
import { formatBytes } from '../lib/format';
import { ProgressBar } from './ProgressBar';
import { ErrorState, Loading } from './States';

/** The recognizer a transcription gets without `model`: the best installed Whisper model, else PocketSphinx. */
function defaultEngine(models: WhisperModel[]): string {
  const best = models.filter((m) => m.installed).sort((a, b) => b.rank - a.rank)[0];
  return best ? best.id : 'pocketsphinx-en-us';
}

/** Settings → Speech models: download, resume, cancel, verify and delete Whisper models. */
export function WhisperModels() {
  const { api } = useApp();
  const [list, update, reload] = useLoad((signal) => api.listWhisperModels(signal), []);
  const downloading = list.state === 'ready' && list.value.data.some((m) => m.download?.status === 'downloading');

  // Poll while a download runs, so its progress moves.
  useEffect(() => {
    if (!downloading) return;
    const timer = setInterval(() => {
      api.listWhisperModels().then((value) => update(() => value), () => {});
    }, 1000);
    return () => clearInterval(timer);
  }, [downloading, api]);

  return (
    <section className="whisper-models" aria-labelledby="speech-models">
      <h2 id="speech-models">Speech models</h2>
      <p className="hint">
        Whisper models (whisper.cpp) transcribe far better than the built-in PocketSphinx. A downloaded model becomes a
        choice for <code>model</code> in the API, and the best one installed transcribes uploads by default.
      </p>
      {list.state === 'loading' && <Loading label="Loading models…" />}
      {list.state === 'error' && <ErrorState message={list.message} onRetry={reload} />}
      {list.state === 'ready' && <ModelTable list={list.value} onChange={(m) => update((v) => replace(v, m))} onReload={reload} />}
    </section>
  );
}

function replace(list: WhisperModelList, model: WhisperModel): WhisperModelList {
  return { ...list, data: list.data.map((m) => (m.name === model.name ? model : m)) };
}

function ModelTable({ list, onChange, onReload }: { list: WhisperModelList; onChange: (m: WhisperModel) => void; onReload: () => void }) {
  return (
    <>
      <dl className="kv" data-testid="whisper-folder">
        <dt>Folder</dt>
        <dd>
          <code>{list.models_dir}</code>
          {!list.writable && <span className="field-error"> read-only: downloads are not possible</span>}
        </dd>
        <dt>Free space</dt>
        <dd>{list.free_bytes == null ? '—' : formatBytes(list.free_bytes)}</dd>
        <dt>Downloads from</dt>
        <dd>
          <code>{list.base_url}</code>
        </dd>
        {list.shared && (
          <>
            <dt>Installed for</dt>
            <dd data-testid="whisper-shared">the whole team: kept on its storage, listed by every node, fetched by workers when they need one</dd>
          </>
        )}
        <dt>Default recognizer</dt>
        <dd data-testid="default-engine">{defaultEngine(list.data)}</dd>
      </dl>
      <table className="models-table" data-testid="whisper-models">
        <thead>
          <tr>
            <th>Model</th>
            <th>Languages</th>
            <th>Size</th>
            <th>State</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {list.data.map((m) => (
            <ModelRow key={m.name} model={m} writable={list.writable} onChange={onChange} onReload={onReload} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function ModelRow({
  model,
  writable,
  onChange,
  onReload,
}: {
  model: WhisperModel;
  writable: boolean;
  onChange: (m: WhisperModel) => void;
  onReload: () => void;
}) {
  const { api, store } = useApp();
  const [busy, setBusy] = useState(false);
  const act = async (what: () => Promise<WhisperModel | void>) => {
    setBusy(true);
    try {
      const next = await what();
      if (next) onChange(next);
      else onReload();
    } catch (error) {
      store.getState().notify(messageOf(error));
      onReload();
    } finally {
      setBusy(false);
    }
  };
  const d = model.download;
  const running = d?.status === 'downloading';
  const total = d?.total_bytes ?? null;
  return (
    <tr data-testid={`model-${model.name}`}>
      <td>
        <div>{model.name}</div>
        <div className="key">{model.id}</div>
      </td>
      <td>{model.multilingual ? 'Multilingual' : 'English'}</td>
      <td className="num">{model.bytes != null ? formatBytes(model.bytes) : (model.size ?? '—')}</td>
      <td className="model-state">
        {running && (
          <ProgressBar
            value={total ? d.received_bytes / total : null}
            label={total ? `${formatBytes(d.received_bytes)} of ${formatBytes(total)}` : 'Starting'}
            testId={`progress-${model.name}`}
          />
        )}
        {!running && model.installed && (
          <span className={`badge${model.verified === false ? ' warn' : ''}`}>
            {model.verified === true ? 'Installed · checksum verified' : model.verified === false ? 'Installed · checksum differs' : 'Installed · not checked'}
          </span>
        )}
        {!running && !model.installed && d?.error && (
          <span className="field-error" role="alert">
            {d.status === 'cancelled' ? 'Cancelled' : d.error.message}
          </span>
        )}
        {!running && !model.installed && !d?.error && <span className="hint">Not installed</span>}
      </td>
      <td className="actions">
        {running && (
          <button disabled={busy} onClick={() => act(() => api.cancelWhisperDownload(model.name, false))}>
            Cancel
          </button>
        )}
        {!running && !model.installed && model.catalogued && (
          <button disabled={busy || !writable} onClick={() => act(() => api.downloadWhisperModel(model.name))}>
            {model.partial_bytes > 0 ? `Resume (${formatBytes(model.partial_bytes)} kept)` : 'Download'}
          </button>
        )}
        {!running && !model.installed && model.partial_bytes > 0 && (
          <button disabled={busy} onClick={() => act(() => api.cancelWhisperDownload(model.name, true))}>
            Discard
          </button>
        )}
        {!running && model.installed && model.catalogued && model.verified !== true && (
          <button disabled={busy} onClick={() => act(() => api.verifyWhisperModel(model.name))}>
            Verify
          </button>
        )}
        {!running && model.installed && (
          <button
            disabled={busy || !writable}
            onClick={() => {
              if (window.confirm(`Delete ${model.file}?`)) void act(() => api.removeWhisperModel(model.name));
            }}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}
