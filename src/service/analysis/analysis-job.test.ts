import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audioDir, modelsDir } from '../../../test/helpers/paths';
import { childProcesses } from '../../../test/helpers/proc-stat';
import { resolveMediaTools } from '../media/tools';
import { resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import type { AnalysisMessage, AnalysisRequest, LineInput } from './protocol';
import { runAnalysisProcess } from './analysis-job';

/** The first minutes of long/ with its reference lines (words spread evenly over each line). */
function longRequest(lineCount: number): AnalysisRequest {
  const rows = fs
    .readFileSync(path.join(audioDir, 'long/read_speech_concat.segments.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1, lineCount + 1)
    .map((row) => row.split('\t'));
  const lines: LineInput[] = rows.map(([start, end, , text], id) => {
    const s = Number(start);
    const e = Number(end);
    const words = text!.split(/\s+/);
    const step = (e - s) / words.length;
    return {
      id,
      speaker: 'S1',
      start: s,
      end: e,
      text: text!,
      words: words.map((word, i) => ({ word, start: s + i * step, end: s + (i + 1) * step })),
    };
  });
  return {
    file: path.join(audioDir, 'long/read_speech_concat.flac'),
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
