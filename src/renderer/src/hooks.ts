import { useEffect, useRef, useState } from 'react';
import { messageOf } from './api/errors';

export type Loadable<T> =
  { state: 'loading' } | { state: 'error'; error: unknown; message: string } | { state: 'ready'; value: T };

/** Run an async load on mount and whenever deps change; aborts the previous one. */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): [Loadable<T>, (update: (value: T) => T) => void, () => void] {
  const [result, setResult] = useState<Loadable<T>>({ state: 'loading' });
  const [nonce, setNonce] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setResult({ state: 'loading' });
    loadRef.current(controller.signal).then(
      (value) => !controller.signal.aborted && setResult({ state: 'ready', value }),
      (error: unknown) =>
        !controller.signal.aborted && setResult({ state: 'error', error, message: messageOf(error) }),
    );
    return () => controller.abort();
  }, [...deps, nonce]);
  const update = (fn: (value: T) => T) =>
    setResult((r) => (r.state === 'ready' ? { state: 'ready', value: fn(r.value) } : r));
  return [result, update, () => setNonce((n) => n + 1)];
}

/** Current location hash, updated on navigation. */
export function useHash(): string {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/**
 * Calls `tick` every `ms` while `key` is not null (a new key restarts it), one call at a time; stops when
 * `tick` returns false, the key changes or the component unmounts (its signal is then aborted). A tick
 * that throws is tried again at the next interval.
 */
export function usePolling(key: string | null, tick: (signal: AbortSignal) => Promise<boolean | void>, ms: number): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const run = async () => {
      let more: boolean | void = true;
      try {
        more = await tickRef.current(controller.signal);
      } catch {
        /* transient: the next tick tries again */
      }
      if (more !== false && !controller.signal.aborted) timer = setTimeout(run, ms);
    };
    timer = setTimeout(run, ms);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [key, ms]);
}
