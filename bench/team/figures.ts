import { quantile } from '../../src/service/dsp/stats';

/** One row of the `jobs` table as the team bench reads it (times as stored: ISO 8601 text). */
export interface JobTimes {
  kind: string;
  status: string;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** n, median, p99, min and max of a list (linear interpolation between order statistics); null figures when empty. */
export interface Summary {
  n: number;
  p50: number | null;
  p99: number | null;
  min: number | null;
  max: number | null;
}

export function summarize(values: readonly number[]): Summary {
  const finite = values.filter(Number.isFinite);
  return {
    n: finite.length,
    p50: quantile(finite, 0.5),
    p99: quantile(finite, 0.99),
    min: finite.length ? Math.min(...finite) : null,
    max: finite.length ? Math.max(...finite) : null,
  };
}

/**
 * A batch's throughput from its job records: from the first job's enqueue (created_at) to the last job's end
 * (finished_at), so the workers' start-up, which came before, is not in it. Every job of the batch counts (the
 * transcriptions and what they queue: analysis, speaker profiles): a recording is done when its last job is.
 */
export function batchThroughput(jobs: readonly JobTimes[], recordings: number): { seconds: number; perMinute: number } {
  if (jobs.length === 0) throw new Error('no jobs in the batch');
  const unfinished = jobs.filter((j) => j.finished_at === null);
  if (unfinished.length) throw new Error(`${unfinished.length} of the batch's jobs have not finished`);
  const first = Math.min(...jobs.map((j) => Date.parse(j.created_at)));
  const last = Math.max(...jobs.map((j) => Date.parse(j.finished_at!)));
  const seconds = (last - first) / 1000;
  if (!(seconds > 0)) throw new Error(`the batch's window is ${seconds} s`);
  return { seconds, perMinute: (recordings * 60) / seconds };
}

/**
 * Enqueue → start of each job's one run, in seconds. A job run more than once (a killed worker's) is left out:
 * its started_at is its last attempt's, not its first.
 */
export function queueLatencies(jobs: readonly JobTimes[]): number[] {
  return jobs.filter((j) => j.attempts === 1 && j.started_at !== null).map((j) => (Date.parse(j.started_at!) - Date.parse(j.created_at)) / 1000);
}

/**
 * Enqueue → start of the jobs enqueued while fewer than `workers` jobs were running (a worker was free) and no
 * job enqueued before was still waiting: the queue engine's own pick-up time, without the wait behind a batch
 * (a batch uploaded within milliseconds finds its worker free until the first job starts, yet its later jobs
 * wait behind the earlier ones). Single-attempt jobs only, as above.
 */
export function freeWorkerLatencies(jobs: readonly JobTimes[], workers: number): number[] {
  const runs = jobs.filter((j) => j.started_at !== null).map((j) => ({ from: Date.parse(j.started_at!), to: j.finished_at === null ? Infinity : Date.parse(j.finished_at) }));
  const waits = jobs.map((j) => ({ from: Date.parse(j.created_at), to: j.started_at === null ? Infinity : Date.parse(j.started_at) }));
  return jobs
    .filter((j) => j.attempts === 1 && j.started_at !== null)
    .filter((j) => {
      const at = Date.parse(j.created_at);
      return runs.filter((r) => r.from <= at && at < r.to).length < workers && !waits.some((w) => w.from < at && at < w.to);
    })
    .map((j) => (Date.parse(j.started_at!) - Date.parse(j.created_at)) / 1000);
}

/**
 * Hand-over gaps: for each job that was waiting when a worker came free, the time from that worker's previous
 * job's end (the latest finished_at before this job's start) to this job's start. The queue engine's idle time
 * between jobs with a backlog (pg-boss waits out its polling interval unless a new job's NOTIFY wakes it).
 */
export function handOverGaps(jobs: readonly JobTimes[]): number[] {
  const ends = jobs.filter((j) => j.finished_at !== null).map((j) => Date.parse(j.finished_at!));
  const gaps: number[] = [];
  for (const j of jobs) {
    if (j.attempts !== 1 || j.started_at === null) continue;
    const start = Date.parse(j.started_at);
    const freed = Math.max(-Infinity, ...ends.filter((e) => e <= start));
    if (Number.isFinite(freed) && Date.parse(j.created_at) < freed) gaps.push((start - freed) / 1000);
  }
  return gaps;
}

/**
 * How many jobs ran at once over a batch's window (first enqueue → last end): the time-weighted mean and the
 * most at any moment. With n workers the mean can reach n only if jobs were always waiting; a mean near 1 with
 * more workers says the jobs did not overlap (they were not there to run, or something made them wait).
 */
export function runningAtOnce(jobs: readonly JobTimes[]): { mean: number; max: number } {
  const runs = jobs.filter((j) => j.started_at !== null && j.finished_at !== null).map((j) => [Date.parse(j.started_at!), Date.parse(j.finished_at!)] as const);
  if (runs.length === 0) return { mean: 0, max: 0 };
  const from = Math.min(...jobs.map((j) => Date.parse(j.created_at)));
  const to = Math.max(...runs.map((r) => r[1]));
  const busy = runs.reduce((sum, [a, b]) => sum + (b - a), 0);
  // Starts before ends at the same instant would count a hand-over as two at once: ends first.
  const events = runs.flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let max = 0;
  for (const [, step] of events) max = Math.max(max, (now += step));
  return { mean: to > from ? busy / (to - from) : 0, max };
}

/** A figure divided by the baseline's, or null when there is no baseline. */
export function ratio(value: number, baseline: number | undefined): number | null {
  return baseline && baseline > 0 ? value / baseline : null;
}
