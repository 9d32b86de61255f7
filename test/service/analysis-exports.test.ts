/**
 * The analysis exports through the real service: a two-reader recording analysed end to end, a 29.97
 * drop-frame timebase, then every export format over HTTP — content types and file names, moments as EDL
 * locators and FCPXML markers, the selects EDL cut on the frames of the document's select moments, the
 * analysis CSV equal to the document line by line — and 409 while there is no complete analysis.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisDocument } from '../../src/shared/schemas/analysis';
import { secondsToFrames, secondsToFramesCeil, timecodeToSeconds } from '../../src/shared/timecode';
import { ANALYSIS_CSV_COLUMNS, numberCell } from '../../src/service/export/analysis-csv';
import { parseCsv } from '../../src/service/export/testing/csv';
import { parseEdl } from '../../src/service/export/testing/edl';
import { findAll, parseXml } from '../../src/service/export/testing/xml';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { twoReadersFile } from '../helpers/two-readers';

type Doc = ReturnType<typeof AnalysisDocument.parse>;
const CLOCK = { frameRate: '29.97', dropFrame: true, startTimecode: '00:59:58;00' } as const;

describe('analysis exports over HTTP', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  const tmp = tempDir('takeline-analysis-exports-');
  let id = '';
  let doc: Doc;

  const upload = async (bytes: Buffer, name: string) => {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'exports' },
      { name: 'file', file: bytes, filename: name },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(201);
    return res.json().id as string;
  };
  const settle = async (session: string): Promise<Doc> => {
    const until = Date.now() + 500_000;
    for (;;) {
      const res = await fetch(`${svc.url}/v1/speech/transcriptions/${session}/intelligence`, {
        headers: auth,
      });
      const d = AnalysisDocument.parse(await res.json());
      if (['complete', 'failed', 'unavailable'].includes(d.intelligence.status) || Date.now() > until)
        return d;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const exportOf = (session: string, format: string) =>
    rawRequest(`${svc.url}/v1/speech/transcriptions/${session}/export?format=${format}`, { headers: auth });

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    id = await upload(fs.readFileSync(twoReadersFile(tmp)), 'two readers, take 1.flac');
    doc = await settle(id);
    expect(doc.intelligence.status).toBe('complete');
    const patch = await rawRequest(`${svc.url}/v1/speech/transcriptions/${id}/media`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        frame_rate: '29.97',
        drop_frame: true,
        start_timecode: CLOCK.startTimecode,
        tape: 'TR01',
      }),
    });
    expect(patch.status).toBe(200);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('serves each format with its content type and a file name from the recording', async () => {
    const expected = {
      edl: ['text/plain; charset=utf-8', 'two readers, take 1.edl'],
      fcpxml: ['application/xml; charset=utf-8', 'two readers, take 1.fcpxml'],
      csv: ['text/csv; charset=utf-8; header=present', 'two readers, take 1.csv'],
      selects_edl: ['text/plain; charset=utf-8', 'two readers, take 1.selects.edl'],
      analysis_csv: ['text/csv; charset=utf-8; header=present', 'two readers, take 1.analysis.csv'],
    };
    for (const [format, [type, name]] of Object.entries(expected)) {
      const res = await exportOf(id, format);
      expect(res.status, format).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(decodeURIComponent(String(res.headers['content-disposition']))).toContain(name);
    }
    const bad = await exportOf(id, 'docx');
    expect(bad.status).toBe(422);
  });

  it('marks every moment in the EDL and FCPXML, coloured by type', async () => {
    const moments = doc.intelligence.moments;
    console.info(`moments: ${JSON.stringify(moments.map((m) => [m.type, m.start, m.end]))}`);
    const [event] = parseEdl((await exportOf(id, 'edl')).text()).events;
    const colour: Record<string, string> = { select: 'GREEN', unusable: 'RED', trim: 'YELLOW' };
    const locs = event!.locators.filter((l) => /^(Select|Unusable|Trim):/.test(l.text));
    expect(locs).toHaveLength(moments.length);
    const sorted = [...moments].sort((a, b) => a.start - b.start);
    locs.forEach((l, i) => {
      expect(l.colour).toBe(colour[sorted[i]!.type] ?? 'RED');
      expect(secondsToFrames(timecodeToSeconds(l.timecode, CLOCK), '29.97')).toBe(
        secondsToFrames(sorted[i]!.start, '29.97'),
      );
    });
    const xml = parseXml((await exportOf(id, 'fcpxml')).text());
    const notes = findAll(xml, 'asset-clip')[0]!.children.filter((c) =>
      c.attributes.note?.startsWith('moment '),
    );
    expect(notes).toHaveLength(moments.length);
  });

  it('cuts the selects EDL on the frames of the select moments', async () => {
    const selects = doc.intelligence.moments
      .filter((m) => m.type === 'select')
      .sort((a, b) => a.start - b.start);
    const edl = parseEdl((await exportOf(id, 'selects_edl')).text());
    expect(edl.dropFrame).toBe(true);
    expect(edl.events).toHaveLength(selects.length);
    if (selects.length === 0) expect(edl.notes.join('\n')).toMatch(/NO SELECT MOMENTS/);
    edl.events.forEach((e, i) => {
      expect(Math.round((timecodeToSeconds(e.sourceIn, CLOCK) * 30000) / 1001)).toBe(
        secondsToFrames(selects[i]!.start, '29.97'),
      );
      expect(Math.round((timecodeToSeconds(e.sourceOut, CLOCK) * 30000) / 1001)).toBe(
        Math.min(
          secondsToFramesCeil(selects[i]!.end, '29.97'),
          secondsToFramesCeil(doc.intelligence.duration, '29.97'),
        ),
      );
      expect(e.reel).toBe('TR01');
    });
  });

  it('writes the analysis CSV line by line from the document', async () => {
    const [header, ...rows] = parseCsv((await exportOf(id, 'analysis_csv')).text());
    expect(header).toEqual([...ANALYSIS_CSV_COLUMNS]);
    const col = (name: (typeof ANALYSIS_CSV_COLUMNS)[number]) => ANALYSIS_CSV_COLUMNS.indexOf(name);
    const lines = new Map(doc.intelligence.segments.map((s) => [s.id, s]));
    expect(rows.length).toBe(doc.intelligence.coverage.segments);
    for (const row of rows) {
      const line = lines.get(Number(row[col('id')]))!;
      expect(line).toBeDefined();
      expect(row[col('speaker')]).toBe(line.speaker);
      expect(row[col('pitch_hz')]).toBe(numberCell(line.prosody.pitch_hz, 1));
      expect(row[col('energy_db')]).toBe(numberCell(line.prosody.energy_db, 1));
      expect(row[col('quality_score')]).toBe(numberCell(line.quality.score, 3));
      expect(row[col('mos_ovrl')]).toBe(numberCell(line.quality.mos?.ovrl, 2));
      expect(row[col('valence')]).toBe(numberCell(line.perception?.valence));
      expect(row[col('delivery_label')]).toBe(line.delivery?.label ?? '');
      expect(row[col('timebase')]).toBe('29.97 fps drop frame, starting at 00:59:58;00');
    }
  });

  it('is 409 for the analysis formats while there is no complete analysis; the others still export', async () => {
    const silence = path.join(tmp, 'silence.flac');
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '3', silence]);
    const quiet = await upload(fs.readFileSync(silence), 'silence.flac');
    expect((await settle(quiet)).intelligence.status).toBe('unavailable');
    for (const format of ['selects_edl', 'analysis_csv']) {
      const res = await exportOf(quiet, format);
      expect(res.status).toBe(409);
      expect(res.json().detail).toMatch(/analysis is not complete \(status: unavailable/);
    }
    expect((await exportOf(quiet, 'edl')).status).toBe(200);
  });
});
