import { describe, expect, it } from 'vitest';
import { batchThroughput, freeWorkerLatencies, handOverGaps, queueLatencies, ratio, runningAtOnce, summarize, type JobTimes } from './figures';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 18, 0, 0) + s * 1000).toISOString();
const job = (created: number, started: number | null, finished: number | null, attempts = 1): JobTimes => ({
  kind: 'transcribe',
  status: finished === null ? 'running' : 'complete',
  attempts,
  created_at: at(created),
  started_at: started === null ? null : at(started),
  finished_at: finished === null ? null : at(finished),
});

describe('team bench figures', () => {
  it('summarizes with linear interpolation between order statistics', () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect(s).toEqual({ n: 5, p50: 3, p99: 4.96, min: 1, max: 5 });
    expect(summarize([])).toEqual({ n: 0, p50: null, p99: null, min: null, max: null });
    expect(summarize([7, Number.NaN]).n).toBe(1);
  });

  it('measures a batch from its first enqueue to its last finish', () => {
    // Three recordings, jobs enqueued at 10 s and 11 s, the last finishing at 70 s: 60 s, 3 per minute.
    const jobs = [job(10, 10.2, 30), job(11, 30.1, 50), job(11, 50.1, 70), job(30, 31, 40)];
    expect(batchThroughput(jobs, 3)).toEqual({ seconds: 60, perMinute: 3 });
  });

  it('refuses a batch that is not finished or empty', () => {
    expect(() => batchThroughput([job(0, 1, null)], 1)).toThrow(/not finished/);
    expect(() => batchThroughput([], 1)).toThrow(/no jobs/);
  });

  it('takes queue latency from single-attempt jobs only', () => {
    const jobs = [job(0, 0.25, 5), job(1, 6, 9), job(2, 40, 60, 2), job(3, null, null)];
    expect(queueLatencies(jobs)).toEqual([0.25, 5]);
  });

  it('keeps the latencies of jobs enqueued while a worker was free', () => {
    // One worker: the first job finds it free; the second is enqueued while the first runs (it waits).
    const jobs = [job(0, 0.1, 10), job(1, 10.2, 20), job(30, 30.3, 40)];
    expect(freeWorkerLatencies(jobs, 1).map((s) => +s.toFixed(3))).toEqual([0.1, 0.3]);
    // Two workers: the second job found one free too.
    expect(freeWorkerLatencies(jobs, 2).map((s) => +s.toFixed(3))).toEqual([0.1, 9.2, 0.3]);
    // A batch enqueued at once: the second job finds the worker free (the first has not started yet), but it
    // waits behind the first, not for the engine.
    const batch = [job(0, 0.05, 1), job(0.01, 1, 2), job(5, 5.02, 6)];
    expect(freeWorkerLatencies(batch, 1).map((s) => +s.toFixed(3))).toEqual([0.05, 0.02]);
  });

  it('measures the idle time between a job\'s end and the start of one that was waiting for it', () => {
    // The second job waited behind the first and started 4.9 s after it ended; the third was enqueued after
    // the second had ended (no backlog), so it is not a hand-over.
    const jobs = [job(0, 0.1, 10), job(1, 14.9, 20), job(30, 30.3, 40)];
    expect(handOverGaps(jobs).map((s) => +s.toFixed(3))).toEqual([4.9]);
  });

  it('counts how many jobs ran at once over the window, on average and at most', () => {
    // Window 0–20 s: one job 0–10 and two overlapping 5–15 and 10–20 (a hand-over at 10 s is not three at once).
    const jobs = [job(0, 0, 10), job(0, 5, 15), job(1, 10, 20)];
    expect(runningAtOnce(jobs)).toEqual({ mean: 1.5, max: 2 });
    expect(runningAtOnce([])).toEqual({ mean: 0, max: 0 });
  });

  it('gives ratios to a baseline', () => {
    expect(ratio(3.2, 2)).toBe(1.6);
    expect(ratio(3, undefined)).toBeNull();
    expect(ratio(3, 0)).toBeNull();
  });
});
