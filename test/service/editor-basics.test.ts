/**
 * The editor's basics over HTTP: exporting part of a recording (`start`/`end` on the export
 * route) and rejecting a speaker match ("not this person"). One real two-reader recording uploaded twice
 * into one project, so the second one's voices are matched to the first one's speakers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, SpeakerMatchRejected } from '../../src/shared/schemas';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { twoReadersFile } from '../helpers/two-readers';
import { until } from '../helpers/poll';
import { decodeWav } from '../../src/service/media/wav';

type SessionDoc = ReturnType<typeof Session.parse>;

describe("the editor's basics over HTTP", { timeout: 900_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let first: SessionDoc;
  let second: SessionDoc;
  const tmp = tempDir('takeline-editor-');
  let recording: Buffer;

  const session = async (id: string): Promise<SessionDoc> => Session.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json());
  const upload = async () => {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'editor' },
      { name: 'file', file: recording, filename: 'two-readers.flac' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    const id = res.json().id as string;
    const done = await until(() => session(id), (s) => s.status === 'complete' || s.status === 'failed');
    expect(done.status).toBe('complete');
    return done;
  };
  const leftovers = () => fs.readdirSync(path.join(svc.dataDir, 'scratch')).filter((n) => n.startsWith('export-'));
  const get = (path: string) => fetch(`${svc.url}/v1/speech/transcriptions/${path}`, { headers: auth });
  const reject = (id: string, label: string, body: unknown) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${id}/speakers/${label}/reject-match`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    recording = fs.readFileSync(twoReadersFile(tmp));
    first = await upload();
    second = await upload();
  }, 800_000);
  afterAll(async () => {
    await svc?.stop();
  });

  describe('export of a range', () => {
    const srtCues = (body: string) =>
      body
        .trim()
        .split(/\n\n+/)
        .map((block) => {
          const [, times, ...text] = block.split('\n');
          const [a, b] = times!.split(' --> ').map((t) => {
            const [h, m, s] = t.replace(',', '.').split(':').map(Number);
            return h! * 3600 + m! * 60 + s!;
          });
          return { start: a!, end: b!, text: text.join(' ') };
        });

    it('keeps only the lines in the range, cut at its edges, at the recording times', async () => {
      const segs = first.transcript!.segments;
      // From the middle of the second line to the middle of the third.
      const start = (segs[1]!.start + segs[1]!.end) / 2;
      const end = (segs[2]!.start + segs[2]!.end) / 2;
      const res = await get(`${first.id}/export?format=srt&start=${start}&end=${end}`);
      expect(res.status).toBe(200);
      // A part of the recording is named with its range, so it never overwrites the whole's export.
      expect(res.headers.get('content-disposition')).toMatch(/two-readers_\d\dh\d\dm\d\d\.\d{3}s-\d\dh\d\dm\d\d\.\d{3}s\.srt/);
      const cues = srtCues(await res.text());
      expect(cues.length).toBeGreaterThanOrEqual(1);
      expect(cues[0]!.start).toBeCloseTo(start, 2);
      expect(cues.at(-1)!.end).toBeCloseTo(end, 2);
      for (const c of cues) {
        expect(c.start).toBeGreaterThanOrEqual(start - 0.001);
        expect(c.end).toBeLessThanOrEqual(end + 0.001);
      }
      // Only the words whose middle is inside: the second line's second half and the third's first half.
      const words = segs
        .flatMap((s) => s.words)
        .filter((w) => (w.start + w.end) / 2 >= start && (w.start + w.end) / 2 < end)
        .map((w) => w.word.trim());
      const said = cues.map((c) => c.text.replace(/^[^:]+: /, '')).join(' ');
      expect(said.split(/\s+/)).toEqual(words);
      const whole = srtCues(await (await get(`${first.id}/export?format=srt`)).text());
      // Without a range: the whole transcript, as before.
      expect(whole[0]!.start).toBeCloseTo(segs[0]!.start, 2);
      expect(whole.at(-1)!.end).toBeCloseTo(segs.at(-1)!.end, 2);
    });

    it('makes the EDL event span the range; an end alone runs from the start, past the end is the end', async () => {
      const edl = await (await get(`${first.id}/export?format=edl&start=2&end=4`)).text();
      // No timebase: 25 fps from 00:00:00:00. Source 2 s → 4 s; record from the start for 2 s.
      expect(edl).toMatch(/^001 +\S+ +A +C +00:00:02:00 00:00:04:00 00:00:00:00 00:00:02:00$/m);
      const fromStart = srtCues(await (await get(`${first.id}/export?format=srt&end=3`)).text());
      expect(fromStart.at(-1)!.end).toBeLessThanOrEqual(3);
      const past = await get(`${first.id}/export?format=vtt&start=1&end=100000`);
      expect(past.status).toBe(200);
    });

    it('exports the audio of the range as WAV, sample for sample the same as that stretch of the whole', async () => {
      const wav = async (query: string, name: string) => {
        const res = await get(`${first.id}/export?format=wav${query}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('audio/wav');
        expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${name}`);
        return decodeWav(Buffer.from(await res.arrayBuffer()));
      };
      const whole = await wav('', 'two-readers.wav');
      const part = await wav('&start=1.25&end=3.5', 'two-readers_00h00m01.250s-00h00m03.500s.wav');
      expect([whole.sampleRate, whole.channels, whole.sampleFormat]).toEqual([16000, 1, 's16']);
      expect([part.sampleRate, part.channels, part.sampleFormat]).toEqual([16000, 1, 's16']);
      expect(whole.frames).toBeCloseTo(first.duration * 16000, -1);
      expect(part.frames).toBe(2.25 * 16000);
      const from = 1.25 * 16000;
      let differing = 0;
      for (let i = 0; i < part.frames; i++) if (part.samples[i] !== whole.samples[from + i]) differing++;
      expect(differing).toBe(0);
      // Nothing is left behind in the scratch folder (removed once the file is sent).
      expect(await until(async () => leftovers(), (l) => l.length === 0, 5000)).toEqual([]);
    });

    it('refuses bad ranges with the field located', async () => {
      const fault = async (query: string) => {
        const res = await get(`${first.id}/export?format=srt&${query}`);
        const body = await res.json();
        return [res.status, body.detail.map((d: { loc: string[] }) => d.loc.join('.'))];
      };
      expect(await fault('start=5&end=5')).toEqual([422, ['query.end']]);
      expect(await fault('start=5&end=2')).toEqual([422, ['query.end']]);
      expect(await fault(`start=${first.duration + 1}`)).toEqual([422, ['query.start']]);
      expect(await fault('start=-1')).toEqual([422, ['query.start']]);
      expect(await fault('end=soon')).toEqual([422, ['query.end']]);
      const audio = await get(`${first.id}/export?format=wav&start=3&end=1`);
      expect(audio.status).toBe(422);
      expect(leftovers()).toEqual([]);
    });
  });

  describe('rejecting a speaker match', () => {
    it("the second recording's voices are matched to the first one's speakers, with their similarity", () => {
      const firstIds = new Set(Object.values(first.speaker_map).map((e) => e.speaker_id));
      const matched = Object.entries(second.speaker_map).filter(([, e]) => e.matched);
      expect(matched.length).toBeGreaterThan(0);
      for (const [, e] of matched) {
        expect(firstIds.has(e.speaker_id)).toBe(true);
        expect(e.similarity).toBeGreaterThan(0.9);
      }
    });

    it('"not this person": the voice gets another speaker at once, in the session and every export', async () => {
      const [label, entry] = Object.entries(second.speaker_map).find(([, e]) => e.matched)!;
      const res = await reject(second.id, label, { speaker_id: entry.speaker_id });
      expect(res.status).toBe(200);
      const body = SpeakerMatchRejected.parse(await res.json());
      expect(body).toMatchObject({ label, rejected_speaker_id: entry.speaker_id });
      const now = body.speaker_map[label]!;
      expect(now.speaker_id).not.toBe(entry.speaker_id);
      // Other voices of the recording keep theirs.
      for (const [other, e] of Object.entries(second.speaker_map)) if (other !== label) expect(body.speaker_map[other]).toEqual(e);
      const after = await session(second.id);
      expect(after.speaker_map).toEqual(body.speaker_map);
      const vtt = await (await get(`${second.id}/export?format=vtt`)).text();
      expect(vtt).toContain(`<v ${now.name}>`);
      const project = await (await fetch(`${svc.url}/v1/speech/projects/editor`, { headers: auth })).json();
      expect(project.speakers.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining([entry.speaker_id, now.speaker_id]));
      // The first recording still names the rejected speaker.
      expect(Object.values((await session(first.id)).speaker_map).map((e) => e.speaker_id)).toContain(entry.speaker_id);

      // Rejected again: the voice is no longer a match, so there is nothing to reject; nothing changes.
      const again = await reject(second.id, label, {});
      expect(again.status).toBe(409);
      expect((await again.json()).detail).toMatch(/not matched/);
      expect((await session(second.id)).speaker_map).toEqual(body.speaker_map);
    });

    it('refuses a stale speaker, an unknown label or session and a malformed body, changing nothing', async () => {
      const before = (await session(second.id)).speaker_map;
      const matched = Object.entries(before).find(([, e]) => e.matched);
      if (matched) {
        const other = Object.entries(before).find(([l]) => l !== matched[0])!;
        const stale = await reject(second.id, matched[0], { speaker_id: other[1].speaker_id });
        expect(stale.status).toBe(409);
      }
      expect((await reject(second.id, 'S99', {})).status).toBe(404);
      expect((await reject('00000000-0000-4000-8000-000000000000', 'S1', {})).status).toBe(404);
      const bad = await reject(second.id, 'S1', { speaker_id: 'someone' });
      expect(bad.status).toBe(422);
      expect((await bad.json()).detail[0].loc).toEqual(['body', 'speaker_id']);
      expect((await session(second.id)).speaker_map).toEqual(before);
    });
  });

  describe("the editor's own markers", () => {
    const markers = (path = '', init: RequestInit = {}) =>
      fetch(`${svc.url}/v1/speech/transcriptions/${first.id}/markers${path}`, {
        ...init,
        headers: { ...auth, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) },
      });
    const add = (body: unknown) => markers('', { method: 'POST', body: JSON.stringify(body) });

    it('adds, lists in time order, renames, moves and removes markers; the exports list them', async () => {
      const late = await add({ time: 20.5, name: 'Pickup here' });
      expect(late.status).toBe(201);
      const b = await late.json();
      expect(late.headers.get('location')).toBe(`/v1/speech/transcriptions/${first.id}/markers/${b.id}`);
      const early = await (await add({ time: 2.25, name: '  Retake: cough  ' })).json();
      expect(early).toMatchObject({ time: 2.25, name: 'Retake: cough' });
      const list = await (await markers()).json();
      expect(list.data.map((m: { id: string }) => m.id)).toEqual([early.id, b.id]);

      const edl = await (await get(`${first.id}/export?format=edl`)).text();
      expect(edl).toMatch(/^\* LOC: 00:00:02:06 \S+ +marker: Retake: cough$/m);
      expect(edl).toMatch(/^\* LOC: 00:00:20:12 \S+ +marker: Pickup here$/m);
      expect(await (await get(`${first.id}/export?format=csv`)).text()).toContain('Pickup here');
      // An export of a part lists only the markers in it.
      const part = await (await get(`${first.id}/export?format=edl&start=1&end=5`)).text();
      expect(part).toContain('Retake: cough');
      expect(part).not.toContain('Pickup here');

      const renamed = await markers(`/${b.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Pick up from here', time: 1 }) });
      expect(renamed.status).toBe(200);
      expect(await renamed.json()).toMatchObject({ id: b.id, name: 'Pick up from here', time: 1 });
      expect((await (await markers()).json()).data.map((m: { id: string }) => m.id)).toEqual([b.id, early.id]);

      expect((await markers(`/${b.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await markers(`/${b.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await (await markers()).json()).data.map((m: { id: string }) => m.id)).toEqual([early.id]);
    });

    it('refuses a time past the end, a blank name, unknown fields and unknown markers, storing nothing', async () => {
      const before = (await (await markers()).json()).data;
      const loc = async (res: Response) => [res.status, (await res.json()).detail.map((d: { loc: string[] }) => d.loc.join('.'))];
      expect(await loc(await add({ time: first.duration + 1, name: 'x' }))).toEqual([422, ['body.time']]);
      expect(await loc(await add({ time: -1, name: 'x' }))).toEqual([422, ['body.time']]);
      expect(await loc(await add({ time: 1, name: '   ' }))).toEqual([422, ['body.name']]);
      expect((await add({ time: 1, name: 'x', colour: 'red' })).status).toBe(422);
      const id = before[0].id as string;
      expect(await loc(await markers(`/${id}`, { method: 'PATCH', body: JSON.stringify({ time: first.duration + 5 }) }))).toEqual([422, ['body.time']]);
      expect((await markers('/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: JSON.stringify({ name: 'y' }) })).status).toBe(404);
      expect((await markers('/not-an-id', { method: 'DELETE' })).status).toBe(422);
      expect((await (await markers()).json()).data).toEqual(before);
    });
  });
});
