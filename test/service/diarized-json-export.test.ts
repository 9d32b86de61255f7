import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptEditResult } from '../../src/shared/schemas/transcript-edits';
import { audioDir } from '../helpers/paths';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { until } from '../helpers/poll';

type Session = TranscriptEditResult['session'];

const asr = path.join(audioDir, 'asr');
// One line the recognizer gets wrong ("percent console" for "present concerned").
const FILE = 'amateur_LJ001-0001.flac';
const reference = fs
  .readFileSync(path.join(asr, 'refs.tsv'), 'utf8')
  .split('\n')
  .map((line) => line.split('\t'))
  .find(([file]) => file === FILE)![2]!;

interface DiarizedJson {
  task: string;
  duration: number;
  text: string;
  segments: Array<{ type: string; id: string; start: number; end: number; speaker: string; text: string }>;
  usage: { type: string; seconds: number };
}

describe('diarized_json of a stored recording follows the current transcript revision', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let id = '';
  let recognized: Session;

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'diarized' },
      { name: 'file', file: fs.readFileSync(path.join(asr, FILE)), filename: FILE },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    id = res.json().id;
    recognized = await until(() => session(), (s) => s.status === 'complete' || s.status === 'failed', 400_000);
    expect(recognized.status).toBe('complete');
  }, 400_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const session = async (): Promise<Session> => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
  const diarized = async (query = ''): Promise<{ res: Response; doc: DiarizedJson }> => {
    const res = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=diarized_json${query}`, { headers: auth });
    expect(res.status, await res.clone().text()).toBe(200);
    return { res, doc: (await res.json()) as DiarizedJson };
  };
  /** The export says what the session's transcript says, line by line. */
  const expectSameAs = (doc: DiarizedJson, s: Session) => {
    const lines = s.transcript!.segments;
    expect(doc.segments.map((g) => [g.id, g.speaker, g.text])).toEqual(lines.map((l) => [`seg_${l.id}`, l.speaker, l.text]));
    expect(doc.text).toBe(lines.map((l) => l.text).join(' '));
    for (const [i, g] of doc.segments.entries()) {
      expect(g.type).toBe('transcript.text.segment');
      expect(g.end).toBeGreaterThan(g.start);
      if (i > 0) expect(g.start).toBeGreaterThanOrEqual(doc.segments[i - 1]!.end);
      // Each spans its words (the diarizer's turns are not stored).
      const words = lines[i]!.words;
      expect(g.start).toBeCloseTo(Math.min(lines[i]!.start, words[0]?.start ?? Infinity), 3);
    }
  };

  it('is the upload’s OpenAI shape, as an attachment named after the recording', async () => {
    const { res, doc } = await diarized();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toContain('amateur_LJ001-0001.diarized.json');
    expect(doc.task).toBe('transcribe');
    expect(doc.duration).toBeCloseTo(recognized.duration!, 2);
    expect(doc.usage).toEqual({ type: 'duration', seconds: Math.ceil(doc.duration) });
    expectSameAs(doc, recognized);
    expect(doc.text.toLowerCase()).toContain('percent console');
  });

  it('reads a word correction at once, and the earlier revision again after a restore', async () => {
    // Revision 0 is the recognizer's transcript.
    const before = 0;
    const patch = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/segments/${recognized.transcript!.segments[0]!.id}`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: reference, base_revision: before }),
    });
    expect(patch.status, await patch.clone().text()).toBe(200);
    const edit = TranscriptEditResult.parse(await patch.json());
    expect(edit.revision.revision).toBe(1);
    const corrected = edit.session;
    const { doc } = await diarized();
    expectSameAs(doc, corrected);
    expect(doc.text).toContain('at present concerned, differs');
    expect(doc.text.toLowerCase()).not.toContain('percent console');
    // Part of the recording: only the lines inside it, the duration of the part.
    const part = await diarized('&start=0&end=3');
    expect(part.doc.duration).toBeCloseTo(3, 3);
    for (const g of part.doc.segments) expect(g.end).toBeLessThanOrEqual(3 + 1e-6);
    // Restoring the recognized revision brings its words back to the export.
    const restore = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions/${before}/restore`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' });
    expect(restore.status, await restore.clone().text()).toBe(200);
    const restored = TranscriptEditResult.parse(await restore.json()).session;
    const back = await diarized();
    expectSameAs(back.doc, restored);
    expect(back.doc.text).toBe(recognized.transcript!.segments.map((l) => l.text).join(' '));
  });

  it('refuses an unknown format without touching the transcript', async () => {
    const res = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=diarized`, { headers: auth });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('format');
    expect((await session()).transcript).toEqual(recognized.transcript);
  });
});
