import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, messageOf } from '../api/errors';
import { useApp } from '../app-context';
import { Empty, ErrorState, Loading } from '../components/States';
import { TopBar } from '../components/TopBar';
import { useLoad } from '../hooks';
import { suggestKey } from '../lib/format';
import { routeHash } from '../lib/route';
import { loadSessionInfo, signInWithKey, type SessionInfo } from '../api/sign-in';

export function ProjectsView() {
  const { api, navigate } = useApp();
  const [projects, , reload] = useLoad((signal) => api.listProjects(signal), []);
  return (
    <>
      <TopBar crumbs={[{ label: 'Projects' }]} />
      <main className="page">
        <h1>Projects</h1>
        <CreateProject onCreated={(key) => navigate(routeHash({ name: 'project', key }))} />
        <h2>All projects</h2>
        {projects.state === 'loading' && <Loading label="Loading projects…" />}
        {projects.state === 'error' &&
          (projects.error instanceof ApiError && projects.error.status === 401 ? (
            <SignInNeeded />
          ) : (
            <ErrorState message={projects.message} onRetry={reload} />
          ))}
        {projects.state === 'ready' &&
          (projects.value.length === 0 ? (
            <Empty title="No projects yet">Create one above, then drop recordings into it.</Empty>
          ) : (
            <div className="grid" data-testid="project-list">
              {projects.value.map((p) => (
                <a key={p.id} className="card" href={routeHash({ name: 'project', key: p.key })}>
                  <div>{p.name}</div>
                  <div className="key">{p.key}</div>
                </a>
              ))}
            </div>
          ))}
      </main>
    </>
  );
}

function SignInNeeded() {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<SessionInfo | null>(null);
  useEffect(() => {
    let live = true;
    void loadSessionInfo().then((value) => live && setInfo(value));
    return () => {
      live = false;
    };
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signInWithKey(key);
      window.location.reload();
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  }

  return (
    <div className="state" role="alert">
      <div className="title">Sign in to the studio</div>
      {info?.single_sign_on && (
        <p>
          <a className="button primary" href="/auth/oidc/login">
            Sign in with your organisation account
          </a>
        </p>
      )}
      <div>
        Open the sign-in link that <code>npm run serve</code> printed (it contains{' '}
        <code>/auth/signin?token=</code>). Used already? <code>npm run keys -- signin</code> prints a fresh one, or
        sign in with an API key:
      </div>
      <form className="inline" onSubmit={submit} aria-label="Sign in with an API key">
        <div className="field">
          <label htmlFor="signin-key">API key</label>
          <input id="signin-key" type="password" autoComplete="off" value={key} placeholder="tl_…" onChange={(e) => setKey(e.target.value)} />
        </div>
        <div className="field">
          <label>&nbsp;</label>
          <button className="primary" type="submit" disabled={busy || !key.trim()}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
        {error && (
          <div className="form-error" style={{ flexBasis: '100%' }}>
            {error}
          </div>
        )}
      </form>
    </div>
  );
}

function CreateProject({ onCreated }: { onCreated: (key: string) => void }) {
  const { api, store } = useApp();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyEdited, setKeyEdited] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [generalError, setGeneralError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setGeneralError(null);
    try {
      const project = await api.createProject({ key, name });
      store.getState().notify(`Project “${project.name}” created`);
      onCreated(project.key);
    } catch (err) {
      if (err instanceof ApiError && Object.keys(err.fields).length) setError(err);
      else setGeneralError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const fieldErrors = (f: string) =>
    error?.fields[f]?.map((m) => (
      <div className="field-error" key={m}>
        {m}
      </div>
    ));

  return (
    <form className="inline" onSubmit={submit} aria-label="Create project">
      <div className="field">
        <label htmlFor="project-name">Name</label>
        <input
          id="project-name"
          type="text"
          value={name}
          placeholder="Interview series"
          onChange={(e) => {
            setName(e.target.value);
            if (!keyEdited) setKey(suggestKey(e.target.value));
          }}
        />
        {fieldErrors('name')}
      </div>
      <div className="field">
        <label htmlFor="project-key">Key</label>
        <input
          id="project-key"
          type="text"
          value={key}
          placeholder="interview-series"
          onChange={(e) => {
            setKey(e.target.value);
            setKeyEdited(true);
          }}
        />
        {fieldErrors('key')}
      </div>
      <div className="field">
        <label>&nbsp;</label>
        <button className="primary" type="submit" disabled={busy || !name.trim() || !key.trim()}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
      </div>
      {(generalError || error?.fields._) && (
        <div className="form-error" role="alert" style={{ flexBasis: '100%' }}>
          {generalError ?? error?.fields._?.join('; ')}
        </div>
      )}
    </form>
  );
}
