import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_FILE, referenceLines } from '../../../test/helpers/dubs';
import { modelsDir } from '../../../test/helpers/paths';
import { childProcesses } from '../../../test/helpers/proc-stat';
import { resolveMediaTools } from '../media/tools';
import { resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import type { AnalysisMessage, AnalysisRequest, LineInput } from './protocol';
import { runAnalysisProcess } from './analysis-job';

/** The first lines of long/ with their reference texts (words spread evenly over each line). */
function longRequest(lineCount: number): AnalysisRequest {
  const lines: LineInput[] = referenceLines(Infinity)
    .slice(0, lineCount)
    .map(({ speaker, start, end, text }, id) => {
      const words = text.split(/\s+/);
      const step = (end - start) / words.length;
      return { id, speaker, start, end, text, words: words.map((word, i) => ({ word, start: start + i * step, end: start + (i + 1) * step })) };
    });
  return {
    file: LONG_FILE,
    tools: resolveMediaTools(),
    modelsDir,
    dictionary: resolvePocketSphinxModel().dict,
    lines,
    parts: {},
    doneLines: [],
  };
}

const liveChildren = () => childProcesses().filter((child) => child.state !== 'Z');

/** A process's resident set now (MB), or null once it has ended. */
function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

describe('runAnalysisProcess', { timeout: 300_000 }, () => {
  it('can be aborted at any point of its model inference without taking this process with it', async () => {
    const before = new Set(liveChildren().map((c) => c.pid));
    // Aborts land at different points: before the first stage, inside the quality stage's model runs
    // (onnxruntime), between lines. A thread ended inside a run aborted the whole process (std::terminate).
    for (const delay of [0, 300, 900, 1500, 2500, 4000]) {
      const controller = new AbortController();
      const reason = new Error(`aborted after ${delay} ms`);
      const seen: AnalysisMessage['type'][] = [];
      const pending = runAnalysisProcess(longRequest(20), (m) => seen.push(m.type), controller.signal);
      setTimeout(() => controller.abort(reason), delay);
      await expect(pending).rejects.toBe(reason);
      expect(seen).not.toContain('done');
    }
    // Nothing left running once the promise has settled.
    expect(liveChildren().filter((c) => !before.has(c.pid))).toEqual([]);
  });

  it('reports its stages, parts and lines, then ends', async () => {
    const types: AnalysisMessage['type'][] = [];
    await runAnalysisProcess(longRequest(2), (m) => types.push(m.type), new AbortController().signal);
    expect(types).toContain('stage');
    expect(types).toContain('part');
    expect(types).toContain('lines');
  });

  it('does not grow through the quality stage: the model runs give back what they take', async () => {
    // 20 lines of long/ (4 min, ~60 DNSMOS runs). With glibc's defaults (a threshold that rises, an arena per
    // pool thread) the process kept what each model run freed and grew ~150–200 MB from its first line to
    // its last; with ANALYSIS_PROCESS_ENV it stays within a few MB.
    const before = new Set(liveChildren().map((c) => c.pid));
    // The analysis process (tsx's esbuild helper is a child too when run from source).
    const analysisPid = () => liveChildren().find((c) => !before.has(c.pid) && c.name === 'node')?.pid ?? null;
    const atLines: number[] = [];
    let inQuality = false;
    await runAnalysisProcess(
      longRequest(20),
      (m) => {
        if (m.type === 'stage') inQuality = m.stage === 'quality' || (m.stage === 'baselines' && m.fraction === 1);
        if (m.type !== 'lines' || !inQuality) return;
        // Read between lines: the process has sent a line and is starting the next one.
        const pid = analysisPid();
        const rss = pid === null ? null : rssMb(pid);
        if (rss !== null) atLines.push(rss);
      },
      new AbortController().signal,
    );
    expect(atLines.length).toBeGreaterThanOrEqual(15);
    const last = atLines.slice(-5).sort((a, b) => a - b)[2]!;
    expect(last - atLines[0]!).toBeLessThan(50);
  });
});
