import { useRef, useState } from 'react';
import { messageOf } from '../api/errors';
import { isActive, type Session } from '../api/types';
import { useApp } from '../app-context';
import { ConfirmDialog } from '../components/Modal';
import { ProgressBar } from '../components/ProgressBar';
import { processingLabel, processingWaits } from '../lib/processing';
import { Empty, ErrorState, Loading } from '../components/States';
import { TopBar } from '../components/TopBar';
import { UploadZone } from '../components/UploadZone';
import { VocabularyEditor } from '../components/VocabularyEditor';
import { useLoad, usePolling } from '../hooks';
import { formatBytes, formatDuration } from '../lib/format';
import { routeHash } from '../lib/route';

interface Upload {
  id: number;
  name: string;
  size: number;
  progress: number;
  error: string | null;
  abort: () => void;
}

const POLL_MS = 1000;

/** The list keeps no transcripts: they can be large and the list never shows them. */
const slim = (s: Session): Session => ({ ...s, transcript: null });

export function ProjectView({ projectKey }: { projectKey: string }) {
  const { api, store } = useApp();
  const [project, , reloadProject] = useLoad((signal) => api.getProject(projectKey, signal), [projectKey]);
  const [sessions, updateSessions, reloadSessions] = useLoad(
    async (signal) => (await api.listSessions(projectKey, { limit: 100 }, signal)).data.map(slim),
    [projectKey],
  );
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [confirm, setConfirm] = useState<Session | null>(null);
  const [deleting, setDeleting] = useState(false);
  const uploadId = useRef(0);

  // Poll each queued/running recording about once a second until it settles.
  const activeIds =
    sessions.state === 'ready' ? sessions.value.filter((s) => isActive(s.status)).map((s) => s.id) : [];
  const activeKey = activeIds.join(',');
  usePolling(
    activeKey || null,
    async (signal) => {
      await Promise.all(
        activeKey.split(',').map(async (id) => {
          try {
            const fresh = slim(await api.getSession(id, signal));
            updateSessions((list) => list.map((s) => (s.id === id ? fresh : s)));
            if (fresh.status === 'failed')
              store.getState().notify(`${fresh.file_name}: ${fresh.error ?? 'processing failed'}`, 'error');
          } catch {
            /* transient: the next tick tries again */
          }
        }),
      );
    },
    POLL_MS,
  );

  function startUploads(files: File[]) {
    const name = project.state === 'ready' ? project.value.name : undefined;
    for (const file of files) {
      const id = ++uploadId.current;
      const handle = api.upload(file, { projectKey, projectName: name }, (progress) =>
        setUploads((list) => list.map((u) => (u.id === id ? { ...u, progress } : u))),
      );
      setUploads((list) => [
        ...list,
        { id, name: file.name, size: file.size, progress: 0, error: null, abort: handle.abort },
      ]);
      handle.promise.then(
        (session) => {
          setUploads((list) => list.filter((u) => u.id !== id));
          updateSessions((list) => [slim(session), ...list.filter((s) => s.id !== session.id)]);
        },
        (error: unknown) => {
          if ((error as Error).name === 'AbortError') {
            setUploads((list) => list.filter((u) => u.id !== id));
            return;
          }
          setUploads((list) => list.map((u) => (u.id === id ? { ...u, error: messageOf(error) } : u)));
        },
      );
    }
  }

  async function remove(session: Session) {
    setDeleting(true);
    try {
      await api.deleteSession(session.id);
      updateSessions((list) => list.filter((s) => s.id !== session.id));
      store.getState().notify(`Deleted ${session.file_name}`);
      setConfirm(null);
    } catch (error) {
      store.getState().notify(messageOf(error), 'error');
    } finally {
      setDeleting(false);
    }
  }

  const title = project.state === 'ready' ? project.value.name : projectKey;
  return (
    <>
      <TopBar crumbs={[{ label: 'Projects', href: '#/' }, { label: title }]} />
      <main className="page">
        {project.state === 'loading' && <Loading label="Loading project…" />}
        {project.state === 'error' && <ErrorState message={project.message} onRetry={reloadProject} />}
        {project.state === 'ready' && (
          <>
            <h1>
              {project.value.name} <span className="hint num">{project.value.key}</span>
            </h1>
            <UploadZone onFiles={startUploads} />
            {uploads.length > 0 && (
              <div data-testid="uploads" style={{ marginTop: 12 }}>
                {uploads.map((u) => (
                  <div key={u.id} className="progress-row" style={{ margin: '6px 0' }}>
                    <span style={{ minWidth: 220 }}>
                      {u.name} <span className="hint">{formatBytes(u.size)}</span>
                    </span>
                    {u.error ? (
                      <span className="field-error" role="alert">
                        {u.error}
                      </span>
                    ) : (
                      <ProgressBar value={u.progress} label="Uploading" testId="upload-progress" />
                    )}
                    <button
                      className="ghost"
                      onClick={() =>
                        u.error ? setUploads((l) => l.filter((x) => x.id !== u.id)) : u.abort()
                      }
                    >
                      {u.error ? 'Dismiss' : 'Cancel'}
                    </button>
                  </div>
                ))}
              </div>
            )}
            {project.value.speakers.length > 0 && (
              <>
                <h2>Known speakers</h2>
                <div className="speakers-legend">
                  {project.value.speakers.map((s) => (
                    <span key={s.id}>
                      {s.name || s.label} <span className="hint">({Math.round(s.evidence_seconds)} s)</span>
                    </span>
                  ))}
                </div>
              </>
            )}
            <VocabularyEditor projectKey={projectKey} />
          </>
        )}
        <h2>Recordings</h2>
        {sessions.state === 'loading' && <Loading label="Loading recordings…" />}
        {sessions.state === 'error' && <ErrorState message={sessions.message} onRetry={reloadSessions} />}
        {sessions.state === 'ready' &&
          (sessions.value.length === 0 ? (
            <Empty title="No recordings yet">Drop a recording above to transcribe it.</Empty>
          ) : (
            <table className="list" data-testid="recordings">
              <thead>
                <tr>
                  <th>Recording</th>
                  <th>Length</th>
                  <th>Status</th>
                  <th>Added</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {sessions.value.map((s) => (
                  <tr key={s.id} data-testid="recording-row" data-status={s.status}>
                    <td>
                      <a href={routeHash({ name: 'recording', id: s.id })}>{s.file_name}</a>
                    </td>
                    <td className="num">{formatDuration(s.duration)}</td>
                    <td>
                      {isActive(s.status) ? (
                        <ProgressBar
                          value={processingWaits(s) ? null : s.progress}
                          label={processingLabel(s)}
                          testId="processing-progress"
                        />
                      ) : (
                        <span className={`badge ${s.status}`} title={s.error ?? undefined}>
                          {s.status}
                        </span>
                      )}
                      {s.status === 'failed' && s.error && <div className="field-error">{s.error}</div>}
                    </td>
                    <td className="hint">{new Date(s.created_at).toLocaleString()}</td>
                    <td style={{ textAlign: 'right' }}>
                      <button
                        className="ghost"
                        aria-label={`Delete ${s.file_name}`}
                        onClick={() => setConfirm(s)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </main>
      {confirm && (
        <ConfirmDialog
          title="Delete recording?"
          message={
            <>
              <b>{confirm.file_name}</b> and its transcript will be deleted. This cannot be undone.
            </>
          }
          confirmLabel="Delete"
          busy={deleting}
          onConfirm={() => void remove(confirm)}
          onCancel={() => setConfirm(null)}
        />
      )}
    </>
  );
}
