import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');

function leftovers(dataDir: string): string[] {
  return [...fs.readdirSync(path.join(dataDir, 'uploads')), ...fs.readdirSync(path.join(dataDir, 'recordings'))];
}

describe('uploads and sessions', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startServiceProcess({ env: { TAKELINE_MAX_UPLOAD_BYTES: String(2 * 1024 * 1024) } });
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const upload = (parts: Parameters<typeof multipartBody>[0]) => {
    const { body, contentType } = multipartBody(parts);
    return rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
  };

  it('stores a real recording, probes it and creates the project for a new key', async () => {
    const before = leftovers(svc.dataDir).length;
    const res = await upload([
      { name: 'project_key', value: 'new-show' },
      { name: 'project_name', value: 'New show' },
      { name: 'file', file: fs.readFileSync(FLAC), filename: 'take 1.flac', type: 'audio/flac' },
    ]);
    expect(res.status).toBe(201);
    const session = res.json();
    expect(session).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project: { key: 'new-show', name: 'New show' },
      file_name: 'take 1.flac',
      status: 'queued',
      media: null,
      language: 'en',
      format: { container: 'flac', codec: 'flac', sample_rate: 16000, channels: 1, size_bytes: fs.statSync(FLAC).size, content_type: 'audio/flac' },
    });
    const reference = fs.readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8').split('\n').find((l) => l.startsWith('amateur_LJ001-0001'))!;
    expect(session.duration).toBeCloseTo(Number(reference.split('\t')[1]), 1);
    expect(new Date(session.created_at).toISOString()).toBe(session.created_at);
    const stored = path.join(svc.dataDir, 'recordings', session.id, 'original.flac');
    expect(fs.readFileSync(stored).equals(fs.readFileSync(FLAC))).toBe(true);
    expect(leftovers(svc.dataDir).length).toBe(before + 1);
    const project = await (await fetch(`${svc.url}/v1/speech/projects/new-show`, { headers: auth })).json();
    expect(project.name).toBe('New show');
    const read = await (await fetch(`${svc.url}/v1/speech/transcriptions/${session.id}`, { headers: auth })).json();
    expect(read).toMatchObject({ id: session.id, file_name: 'take 1.flac', duration: session.duration, media: null });
    expect(read).toHaveProperty('transcript');
  });

  it('keeps only the last segment of a file name and never uses it as a path', async () => {
    const res = await upload([
      { name: 'project_key', value: 'names' },
      { name: 'file', file: fs.readFileSync(FLAC), filename: '../../../etc/evil.flac' },
    ]);
    expect(res.status).toBe(201);
    const session = res.json();
    expect(session.file_name).toBe('evil.flac');
    expect(fs.existsSync(path.join(svc.dataDir, 'recordings', session.id, 'original.flac'))).toBe(true);
  });

  it('reads other containers: video with sound, and a stereo mp3', async () => {
    const dir = tempDir('takeline-media-');
    const mp4 = path.join(dir, 'clip.mp4');
    const mp3 = path.join(dir, 'stereo.mp3');
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=25:duration=2', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-shortest', '-c:v', 'mpeg4', '-c:a', 'aac', mp4]);
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=1.5', '-ac', '2', '-ar', '44100', mp3]);
    const video = (await upload([{ name: 'project_key', value: 'formats' }, { name: 'file', file: fs.readFileSync(mp4), filename: 'clip.mp4' }])).json();
    expect(video.format).toMatchObject({ codec: 'aac', has_video: true, content_type: 'video/mp4' });
    const stereo = (await upload([{ name: 'project_key', value: 'formats' }, { name: 'file', file: fs.readFileSync(mp3), filename: 'stereo.mp3' }])).json();
    expect(stereo.format).toMatchObject({ codec: 'mp3', channels: 2, sample_rate: 44100, content_type: 'audio/mpeg' });
  });

  it('refuses what is not audio or video with 415 and leaves nothing behind', async () => {
    const before = leftovers(svc.dataDir);
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    for (const [file, filename] of [
      [Buffer.from('this is plain text, not audio\n'.repeat(50)), 'notes.wav'],
      [Buffer.alloc(0), 'empty.flac'],
      [png, 'still.png'],
      [fs.readFileSync(FLAC).subarray(0, 20), 'cut.flac'],
    ] as const) {
      const res = await upload([{ name: 'project_key', value: 'rejects' }, { name: 'file', file, filename }]);
      expect(res.status, filename).toBe(415);
      expect(res.json()).toEqual({ detail: expect.any(String) });
    }
    expect(leftovers(svc.dataDir)).toEqual(before);
    expect((await fetch(`${svc.url}/v1/speech/projects/rejects`, { headers: auth })).status).toBe(404);
  });

  it('refuses a file over the size limit with 413 and leaves nothing behind', async () => {
    const before = leftovers(svc.dataDir);
    const res = await upload([{ name: 'project_key', value: 'big' }, { name: 'file', file: Buffer.alloc(3 * 1024 * 1024, 1), filename: 'big.wav' }]);
    expect(res.status).toBe(413);
    expect(leftovers(svc.dataDir)).toEqual(before);
  });

  it('validates the form: missing, duplicated and invalid parts, wrong content type, truncated body', async () => {
    const flac = fs.readFileSync(FLAC);
    const missingFile = await upload([{ name: 'project_key', value: 'x' }]);
    expect(missingFile.status).toBe(422);
    expect(missingFile.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
    const missingKey = await upload([{ name: 'file', file: flac, filename: 'a.flac' }]);
    expect(missingKey.json().detail[0]).toMatchObject({ loc: ['body', 'project_key'], type: 'missing' });
    const twoFiles = await upload([{ name: 'project_key', value: 'x' }, { name: 'file', file: flac }, { name: 'file', file: flac }]);
    expect(twoFiles.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'duplicate_part' });
    const twoKeys = await upload([{ name: 'project_key', value: 'x' }, { name: 'project_key', value: 'y' }, { name: 'file', file: flac }]);
    expect(twoKeys.json().detail[0]).toMatchObject({ loc: ['body', 'project_key'], type: 'duplicate_part' });
    const badKey = await upload([{ name: 'project_key', value: 'Bad Key' }, { name: 'file', file: flac }]);
    expect(badKey.json().detail[0]).toMatchObject({ loc: ['body', 'project_key'], type: 'string_pattern_mismatch' });
    const longName = await upload([{ name: 'project_key', value: 'ok' }, { name: 'project_name', value: 'n'.repeat(300) }, { name: 'file', file: flac }]);
    expect(longName.json().detail[0]).toMatchObject({ loc: ['body', 'project_name'], type: 'string_too_long' });
    const language = await upload([{ name: 'project_key', value: 'ok' }, { name: 'language', value: 'de' }, { name: 'file', file: flac }]);
    expect(language.status).toBe(422);
    expect(language.json().detail[0]).toMatchObject({ loc: ['body', 'language'], msg: expect.stringContaining('Supported: en') });
    const json = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(415);
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'cut' }, { name: 'file', file: flac }]);
    const before = leftovers(svc.dataDir);
    const truncated = await rawRequest(`${svc.url}/v1/speech/transcriptions`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': contentType },
      body: body.subarray(0, body.length - 5000),
    });
    expect(truncated.status).toBe(422);
    expect(truncated.json().detail[0]).toMatchObject({ loc: ['body'], type: 'multipart_invalid' });
    expect(leftovers(svc.dataDir)).toEqual(before);
  });

  it('lists newest first, filters by project and paginates', async () => {
    const flac = fs.readFileSync(FLAC);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload([{ name: 'project_key', value: 'paged' }, { name: 'file', file: flac, filename: `p${i}.flac` }])).json().id);
    const page = await (await fetch(`${svc.url}/v1/speech/transcriptions?project=paged&limit=2`, { headers: auth })).json();
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const next = await (await fetch(`${svc.url}/v1/speech/transcriptions?project=paged&limit=2&offset=2`, { headers: auth })).json();
    expect(next.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const all = await (await fetch(`${svc.url}/v1/speech/transcriptions`, { headers: auth })).json();
    expect(all.total).toBeGreaterThan(3);
    const bad = await fetch(`${svc.url}/v1/speech/transcriptions?limit=1000`, { headers: auth });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
    expect((await fetch(`${svc.url}/v1/speech/transcriptions?project=missing`, { headers: auth })).status).toBe(404);
  });

  it('deletes a session with its files; unknown and malformed ids get 404 and 422', async () => {
    const session = (await upload([{ name: 'project_key', value: 'gone' }, { name: 'file', file: fs.readFileSync(FLAC) }])).json();
    const res = await fetch(`${svc.url}/v1/speech/transcriptions/${session.id}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(204);
    expect(fs.existsSync(path.join(svc.dataDir, 'recordings', session.id))).toBe(false);
    expect((await fetch(`${svc.url}/v1/speech/transcriptions/${session.id}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${svc.url}/v1/speech/transcriptions/${session.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
    const malformed = await fetch(`${svc.url}/v1/speech/transcriptions/not-a-uuid`, { headers: auth });
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).detail[0]).toMatchObject({ loc: ['path', 'session_id'] });
  });
});
