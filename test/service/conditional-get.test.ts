import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { twoReadersFile } from '../helpers/two-readers';

/**
 * ETag / If-None-Match on the polled documents (GET …/transcriptions/{id} and …/intelligence), over real
 * HTTP: 200 with a strong ETag, 304 with no body while nothing changed, and a change made through every
 * writing path (progress, transcript completion, media, speaker fixes, the speaker map, project speaker
 * names, a new analysis run, delete) visible on the very next conditional GET.
 */
describe('conditional GETs of the session and analysis documents', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let id: string;
  const tmp = tempDir('takeline-etag-');

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'etags' },
      { name: 'file', file: fs.readFileSync(twoReadersFile(tmp)), filename: 'two-readers.flac' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    id = res.json().id;
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const sessionUrl = () => `${svc.url}/v1/speech/transcriptions/${id}`;
  const get = (url: string, etag?: string) => fetch(url, { headers: { ...auth, ...(etag ? { 'If-None-Match': etag } : {}) } });
  /** A conditional GET; a 200 must carry a new ETag and a 304 the same one and no body. */
  async function revalidate(url: string, etag: string, sent = etag): Promise<{ status: number; etag: string; body: any }> {
    const res = await get(url, sent);
    const text = await res.text();
    const tag = res.headers.get('etag')!;
    expect(tag).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    if (res.status === 304) {
      expect(text).toBe('');
      expect(tag).toBe(etag);
      return { status: 304, etag: tag, body: null };
    }
    expect(res.status).toBe(200);
    expect(tag).not.toBe(etag);
    return { status: 200, etag: tag, body: JSON.parse(text) };
  }
  const post = async (p: string, body: unknown) =>
    fetch(`${sessionUrl()}/${p}`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  let etag = '';
  let doc: any;

  it('follows the transcription with If-None-Match: every progress change is a 200, nothing else is', async () => {
    const first = await get(sessionUrl());
    expect(first.status).toBe(200);
    etag = first.headers.get('etag')!;
    doc = await first.json();
    const seen = new Set([`${doc.status} ${doc.progress}`]);
    const end = Date.now() + 300_000;
    while (doc.status !== 'complete' && doc.status !== 'failed' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      const answer = await revalidate(sessionUrl(), etag);
      if (answer.status === 200) {
        ({ etag, body: doc } = answer);
        seen.add(`${doc.status} ${doc.progress}`);
      }
    }
    expect(doc.status).toBe('complete');
    // The completion itself reached the poller, transcript included.
    expect(doc.transcript.segments.length).toBeGreaterThan(0);
    expect(seen.size).toBeGreaterThan(1);
    // Identical to an unconditional GET.
    expect(await (await get(sessionUrl())).json()).toEqual(doc);
  });

  it('answers 304 while nothing changes, then 200 after PATCH …/media', async () => {
    expect((await revalidate(sessionUrl(), etag)).status).toBe(304);
    expect((await revalidate(sessionUrl(), etag, `W/${etag}`)).status).toBe(304);
    expect((await revalidate(sessionUrl(), etag, `"other", ${etag}`)).status).toBe(304);
    const patched = await fetch(`${sessionUrl()}/media`, { method: 'PATCH', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ frame_rate: '25' }) });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const after = await revalidate(sessionUrl(), etag);
    expect(after.status).toBe(200);
    expect(after.body.media).toEqual((await patched.json()).media);
    ({ etag, body: doc } = after);
    expect((await revalidate(sessionUrl(), etag)).status).toBe(304);
  });

  it('sees a speaker fix by hand (transcript and speaker map) and a project speaker renamed', async () => {
    const line = doc.transcript.segments.find((s: { words: unknown[] }) => s.words.length >= 2);
    const split = await post('transcript/split', { segment_id: line.id, word_index: 1 });
    expect(split.status, await split.clone().text()).toBe(200);
    let after = await revalidate(sessionUrl(), etag);
    expect(after.status).toBe(200);
    expect(after.body.transcript.segments).toHaveLength(doc.transcript.segments.length + 1);
    ({ etag, body: doc } = after);

    const reassigned = await post('transcript/reassign', { segment_id: line.id + 1, speaker: 'new' });
    expect(reassigned.status, await reassigned.clone().text()).toBe(200);
    const label = (await reassigned.json()).session.transcript.segments[line.id + 1].speaker;
    after = await revalidate(sessionUrl(), etag);
    expect(after.status).toBe(200);
    expect(after.body.transcript.segments[line.id + 1].speaker).toBe(label);
    ({ etag, body: doc } = after);

    // The new voice is measured in the background and filed into the speaker map.
    const end = Date.now() + 120_000;
    while (!doc.speaker_map[label] && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      const answer = await revalidate(sessionUrl(), etag);
      if (answer.status === 200) ({ etag, body: doc } = answer);
    }
    expect(doc.speaker_map[label]).toBeTruthy();

    const speaker = Object.values(doc.speaker_map)[0] as { speaker_id: string };
    const renamed = await fetch(`${svc.url}/v1/speech/projects/etags/speakers/${speaker.speaker_id}`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Ada Lovelace' }),
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    after = await revalidate(sessionUrl(), etag);
    expect(after.status).toBe(200);
    expect(Object.values(after.body.speaker_map).map((e: any) => e.name)).toContain('Ada Lovelace');
    ({ etag, body: doc } = after);
  });

  it('ETags the analysis document: 200 → 304 → new run → 200, and a rename shows there too', async () => {
    const url = `${sessionUrl()}/intelligence`;
    /** The analysis at `at` once its run is over (complete, failed or unavailable), with the document's ETag. */
    const settled = async (at: string) => {
      for (const end = Date.now() + 300_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
        const res = await get(at);
        const body = await res.json();
        if (['complete', 'failed', 'unavailable'].includes(body.intelligence.status)) return { etag: res.headers.get('etag')!, status: body.intelligence.status as string };
      }
      throw new Error(`the analysis at ${at} did not settle`);
    };
    // Let the runs queued by the edits settle, so nothing changes between the two GETs below.
    let tag = (await settled(url)).etag;
    expect(tag).toMatch(/^"[^"]+"$/);
    expect((await revalidate(url, tag)).status).toBe(304);

    const started = await post('intelligence', {});
    expect(started.status, await started.clone().text()).toBe(202);
    const { run_id } = await started.json();
    const after = await revalidate(url, tag);
    expect(after.status).toBe(200);
    expect(after.body.intelligence.run_id).toBe(run_id);
    tag = after.etag;

    const speaker = Object.values(after.body.speaker_map)[0] as { speaker_id: string };
    await fetch(`${svc.url}/v1/speech/projects/etags/speakers/${speaker.speaker_id}`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Grace Hopper' }),
    });
    const renamed = await revalidate(url, tag);
    expect(renamed.status).toBe(200);
    expect(renamed.body.project.speakers.map((s: { name: string }) => s.name)).toContain('Grace Hopper');

    // Another recording (another project) transcribed and analysed meanwhile leaves this document's ETag alone
    // (once this one's new run is over).
    const quiet = await settled(url);
    const other = multipartBody([
      { name: 'project_key', value: 'elsewhere' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), filename: 'other.flac' },
    ]);
    const created = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': other.contentType }, body: other.body });
    expect(created.status).toBe(201);
    const otherUrl = `${svc.url}/v1/speech/transcriptions/${created.json().id}/intelligence`;
    expect((await settled(otherUrl)).status).toBe('complete');
    expect((await revalidate(url, quiet.etag)).status).toBe(304);

    // A run of another session's id, or an unknown run, is a 404 whatever the client sends.
    const unknown = await get(`${url}?run_id=00000000-0000-4000-8000-000000000000`, renamed.etag);
    expect(unknown.status).toBe(404);
  });

  it('answers 404 after delete, even to a client holding the old ETag', async () => {
    expect((await fetch(sessionUrl(), { method: 'DELETE', headers: auth })).status).toBe(204);
    const res = await get(sessionUrl(), etag);
    expect(res.status).toBe(404);
    expect((await res.json()).detail).toBe('Transcription session not found.');
    expect((await get(`${sessionUrl()}/intelligence`, etag)).status).toBe(404);
  });
});
