/**
 * Verdicts that agree: every line of real recordings, analysed by the analysis process exactly as
 * the service runs it, keeps every rule of speech/perception/consistency.ts — its note, its quality issues,
 * its delivery, the moments over it and its analysis-CSV row never contradict each other.
 *
 * Recordings: the AMI meeting excerpts and the two-party call of diarization/ (far-field, quiet, overlapping
 * speech: where lines are poor or unusable), each line one speaker turn of the reference RTTM (turns of one
 * speaker under 1 s apart joined; no words), and the first minute of long/ (read speech of several
 * sources) with its reference lines, words spread evenly over each line.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalysisSegment, Moment } from '../../shared/schemas/analysis';
import { audioDir, modelsDir } from '../../../test/helpers/paths';
import { LONG_FILE, referenceLines } from '../../../test/helpers/dubs';
import { resolveMediaTools } from '../media/tools';
import { resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { contradictions, CONSISTENCY_RULES } from '../speech/perception/consistency';
import { NOTE_ADVISES_AGAINST, NOTE_RECOMMENDS, NOTE_UNUSABLE } from '../speech/perception/note';
import { renderAnalysisCsv } from '../export/analysis-csv';
import { parseCsv } from '../export/testing/csv';
import { runAnalysisProcess } from './analysis-job';
import type { LineInput } from './protocol';
import { PART } from './document';
import { tempDir } from '../../../test/helpers/temp';

/** Speaker turns of a reference RTTM as lines: one speaker's turns under 1 s apart are one line. */
function rttmLines(file: string): LineInput[] {
  const turns = fs
    .readFileSync(file.replace(/\.flac$/, '.rttm'), 'utf8')
    .trim()
    .split('\n')
    .map((row) => row.split(/\s+/))
    .map((c) => ({ who: c[7]!, start: Number(c[3]), end: Number(c[3]) + Number(c[4]) }))
    .sort((a, b) => a.start - b.start);
  const names = [...new Set(turns.map((t) => t.who))];
  const lines: LineInput[] = [];
  for (const t of turns) {
    const speaker = `S${names.indexOf(t.who) + 1}`;
    const last = lines[lines.length - 1];
    if (last && last.speaker === speaker && t.start - last.end < 1) last.end = Math.max(last.end, t.end);
    else lines.push({ id: lines.length, speaker, start: t.start, end: t.end, text: '', words: [] });
  }
  return lines;
}

function longLines(seconds: number): LineInput[] {
  return referenceLines(seconds).map(({ speaker, start, end, text }, id) => {
    const words = text.split(/\s+/);
    const step = (end - start) / words.length;
    return { id, speaker, start, end, text, words: words.map((word, i) => ({ word, start: start + i * step, end: start + (i + 1) * step })) };
  });
}

interface Analysed {
  name: string;
  lines: LineInput[];
  segments: AnalysisSegment[];
  moments: Moment[];
}

async function analyse(name: string, file: string, lines: LineInput[]): Promise<Analysed> {
  const parts: Record<string, unknown> = {};
  const published = new Map<number, AnalysisSegment>();
  await runAnalysisProcess(
    { file, tools: resolveMediaTools(), modelsDir, dictionary: resolvePocketSphinxModel().dict, lines, parts: {}, doneLines: [] },
    (m) => {
      if (m.type === 'part') parts[m.name] = m.value;
      if (m.type === 'lines') for (const l of m.lines) published.set(l.id, l);
    },
    new AbortController().signal,
  );
  return { name, lines, segments: lines.map((l) => published.get(l.id)!), moments: (parts[PART.moments] as Moment[]) ?? [] };
}

const diarization = path.join(audioDir, 'diarization');
const meetings = ['sample', ...Array.from({ length: 9 }, (_, i) => `trn0${i + 1}`)].map((n) => path.join(diarization, `${n}.flac`));
const available = fs.existsSync(LONG_FILE) && meetings.every((f) => fs.existsSync(f));

describe.runIf(available)('verdicts on real recordings', { timeout: 1_800_000 }, () => {
  it('every line keeps every consistency rule, in the document and in the analysis CSV', async () => {
    const runs: Analysed[] = [];
    for (const file of meetings) runs.push(await analyse(path.basename(file), file, rttmLines(file)));
    // The first minute only (the analysis decodes and tags its whole file).
    const excerpt = path.join(tempDir('takeline-verdicts-'), 'long-60s.flac');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-t', '60', '-i', LONG_FILE, '-c:a', 'flac', excerpt]);
    runs.push(await analyse('long/ 0–60 s', excerpt, longLines(60)));

    const all = runs.flatMap((r) => r.segments.map((s) => ({ run: r, s, covering: r.moments.filter((m) => m.segment_ids.includes(s.id)) })));
    expect(all.length).toBe(runs.reduce((n, r) => n + r.lines.length, 0));
    for (const { s } of all) expect(s?.perception, 'every line listened to').toBeTruthy();

    // The walk meets every kind of verdict the rules speak of, so none holds vacuously.
    const unusable = all.filter((x) => x.covering.some((m) => m.type === 'unusable'));
    const selects = all.filter((x) => x.covering.some((m) => m.type === 'select'));
    const recommended = all.filter((x) => NOTE_RECOMMENDS.some((p) => x.s.perception!.note.includes(p)));
    const advisedAgainst = all.filter((x) => NOTE_ADVISES_AGAINST.some((p) => x.s.perception!.note.includes(p)));
    const severe = all.filter((x) => x.s.quality.issues.some((i) => i.severity >= 0.5));
    expect(unusable.length).toBeGreaterThan(0);
    expect(unusable.some((x) => x.s.quality.score < 0.3)).toBe(true);
    expect(selects.length).toBeGreaterThan(0);
    expect(recommended.length).toBeGreaterThan(0);
    expect(advisedAgainst.length).toBeGreaterThan(0);
    expect(severe.length).toBeGreaterThan(0);

    const broken = runs.flatMap((r) => contradictions(r.segments, r.moments).map((c) => `${r.name} line ${c.line}: ${c.rule}: ${c.detail}`));
    expect(broken).toEqual([]);
    expect(CONSISTENCY_RULES.length).toBeGreaterThanOrEqual(9);

    // The analysis CSV carries the same verdicts: a row's note is its line's note, and agrees with the moments cell.
    for (const r of runs) {
      const csv = renderAnalysisCsv({
        session: { id: 's', fileName: r.name, duration: 0 },
        transcript: { speakers: [...new Set(r.lines.map((l) => l.speaker))], segments: r.lines },
        media: null,
        moments: r.moments,
        lines: r.segments,
      });
      const [header, ...rows] = parseCsv(csv.body);
      const col = (name: string) => header!.indexOf(name);
      expect(rows).toHaveLength(r.lines.length);
      for (const [i, row] of rows.entries()) {
        const note = row[col('note')]!;
        const moments = row[col('moments')]!;
        expect(note).toBe(r.segments[i]!.perception!.note);
        expect(moments.includes('unusable ')).toBe(note.startsWith(NOTE_UNUSABLE));
        if (moments.includes('select ')) expect(NOTE_ADVISES_AGAINST.filter((p) => note.includes(p))).toEqual([]);
        if (NOTE_RECOMMENDS.some((p) => note.includes(p))) expect(moments).not.toMatch(/unusable/);
      }
    }
  });
});
