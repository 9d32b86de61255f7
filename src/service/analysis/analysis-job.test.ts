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
});
