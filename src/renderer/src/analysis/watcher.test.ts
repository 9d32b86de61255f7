import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnalysisDocument, AnalysisRun } from '../../../shared/schemas/analysis';
import { ApiError } from '../api/errors';
import { analysisDocument, SESSION_ID } from './testing/document';
import { createAnalysisWatcher, documentToShow, type AnalysisApi } from './watcher';

const OLD_RUN = 'b7f3a9a0-7d7c-4c39-9f0e-5b1a2c3d4e5f';
const NEW_RUN = 'c8a4b0b1-8e8d-4d4a-8a1f-6c2b3d4e5f60';

const running = (progress: number, measured = 0): AnalysisDocument =>
  analysisDocument({
    status: 'running',
    stage: 'quality',
    progress,
    run_id: NEW_RUN,
    segments: analysisDocument().intelligence.segments.slice(0, measured),
    coverage: { segments: 3, measured, listened: 0 },
  });
const complete = (runId = OLD_RUN) => analysisDocument({ run_id: runId });

function run(status: AnalysisRun['status'], runId: string): AnalysisRun {
  return {
    run_id: runId,
    session_id: SESSION_ID,
    status,
    stage: status,
    progress: status === 'complete' ? 1 : 0,
    version: '1.0.0',
    error: null,
    created_at: '2026-01-01T10:00:00.000Z',
    started_at: null,
    completed_at: null,
  };
}

/** A fake service answering GET …/intelligence from a queue of documents (the last one repeats). */
function fakeApi(docs: AnalysisDocument[], runs: AnalysisRun[] = []) {
  const queue = [...docs];
  let next = 0;
  const api = {
    getIntelligence: vi.fn(async (_id: string, options?: { runId?: string }) => {
      if (options?.runId) return complete(options.runId);
      return queue[Math.min(next++, queue.length - 1)]!;
    }),
    startAnalysis: vi.fn(async () => ({ ...run('queued', NEW_RUN), created: true })),
    listAnalysisRuns: vi.fn(async () => runs),
  };
  return { api: api as AnalysisApi & typeof api, push: (d: AnalysisDocument) => queue.push(d) };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('documentToShow', () => {
  it('shows the newest document unless a complete one is on screen while a newer run works', () => {
    expect(documentToShow(running(0.3), null).intelligence.run_id).toBe(NEW_RUN);
    expect(documentToShow(running(0.3), complete()).intelligence.run_id).toBe(OLD_RUN);
    expect(documentToShow(complete(NEW_RUN), complete()).intelligence.run_id).toBe(NEW_RUN);
    expect(documentToShow(running(0.5), running(0.3)).intelligence.progress).toBe(0.5);
  });
});

describe('createAnalysisWatcher', () => {
  it('polls every few seconds while the run works, showing lines as they come, and stops when it completes', async () => {
    const { api } = fakeApi([running(0.1), running(0.5, 1), complete(NEW_RUN)]);
    const w = createAnalysisWatcher(api, SESSION_ID, { pollMs: 3000 });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.store.getState()).toMatchObject({ polling: true, loadError: null });
    expect(w.store.getState().shown!.intelligence.progress).toBe(0.1);
    // No complete run to show meanwhile: the runs list was asked once, at opening.
    expect(api.listAnalysisRuns).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(2999);
    expect(api.getIntelligence).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.store.getState().shown!.intelligence.segments).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(w.store.getState().shown!.intelligence.status).toBe('complete');
    expect(w.store.getState().polling).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.getIntelligence).toHaveBeenCalledTimes(3);
  });

  it('does not poll a settled analysis', async () => {
    const { api } = fakeApi([
      analysisDocument({ status: 'failed', stage: 'failed', error: 'The audio could not be decoded.' }),
    ]);
    const w = createAnalysisWatcher(api, SESSION_ID);
    w.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.getIntelligence).toHaveBeenCalledTimes(1);
    expect(w.store.getState().shown!.intelligence.error).toBe('The audio could not be decoded.');
  });

  it('stops polling when the view closes', async () => {
    const { api } = fakeApi([running(0.1)]);
    const w = createAnalysisWatcher(api, SESSION_ID);
    w.start();
    await vi.advanceTimersByTimeAsync(6000);
    const calls = api.getIntelligence.mock.calls.length;
    w.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.getIntelligence).toHaveBeenCalledTimes(calls);
    expect(w.store.getState().polling).toBe(false);
  });

  it('starts again after a stop, as React does when it mounts an effect twice, without a stale error', async () => {
    const { api } = fakeApi([running(0.1)]);
    api.getIntelligence.mockImplementationOnce(
      (_id, _o, signal?: AbortSignal) =>
        new Promise((_resolve, reject) =>
          signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    );
    const w = createAnalysisWatcher(api, SESSION_ID, { pollMs: 1000 });
    w.start();
    w.stop();
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.store.getState()).toMatchObject({ loadError: null, polling: true });
    expect(w.store.getState().shown!.intelligence.progress).toBe(0.1);
    w.stop();
  });

  it('keeps polling through a failed load and clears the message when the service answers again', async () => {
    const { api } = fakeApi([running(0.1)]);
    api.getIntelligence.mockRejectedValueOnce(new ApiError(0, 'Cannot reach the Takeline service'));
    const w = createAnalysisWatcher(api, SESSION_ID, { pollMs: 1000 });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.store.getState().loadError).toBe('Cannot reach the Takeline service');
    await vi.advanceTimersByTimeAsync(1000);
    expect(w.store.getState().loadError).toBeNull();
    expect(w.store.getState().shown).not.toBeNull();
  });

  it('re-runs: keeps the complete document on screen, follows the new run, then swaps', async () => {
    const { api, push } = fakeApi([complete()]);
    const w = createAnalysisWatcher(api, SESSION_ID, { pollMs: 1000 });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.store.getState().polling).toBe(false);

    push(running(0.4));
    push(complete(NEW_RUN));
    await w.rerun();
    expect(api.startAnalysis).toHaveBeenCalledWith(SESSION_ID);
    expect(w.store.getState().latest!.intelligence).toMatchObject({ status: 'queued', run_id: NEW_RUN });
    expect(w.store.getState().shown!.intelligence.run_id).toBe(OLD_RUN);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.store.getState().latest!.intelligence.progress).toBe(0.4);
    expect(w.store.getState().shown!.intelligence.run_id).toBe(OLD_RUN);
    await vi.advanceTimersByTimeAsync(1000);
    expect(w.store.getState().shown!.intelligence).toMatchObject({ run_id: NEW_RUN, status: 'complete' });
  });

  it('shows the service’s 409 message when a re-run is refused', async () => {
    const { api } = fakeApi([complete()]);
    api.startAnalysis.mockRejectedValueOnce(
      new ApiError(409, 'The transcript is not complete yet (status: running).'),
    );
    const w = createAnalysisWatcher(api, SESSION_ID);
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    await w.rerun();
    expect(w.store.getState()).toMatchObject({
      starting: false,
      startError: 'The transcript is not complete yet (status: running).',
    });
  });

  it('opening during a re-run shows the last complete run meanwhile', async () => {
    const { api } = fakeApi(
      [running(0.2)],
      [run('running', NEW_RUN), run('failed', 'x'), run('complete', OLD_RUN)],
    );
    const w = createAnalysisWatcher(api, SESSION_ID);
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(api.getIntelligence).toHaveBeenCalledWith(SESSION_ID, { runId: OLD_RUN }, expect.anything());
    expect(w.store.getState().shown!.intelligence.run_id).toBe(OLD_RUN);
    expect(w.store.getState().latest!.intelligence.run_id).toBe(NEW_RUN);
    w.stop();
  });
});
