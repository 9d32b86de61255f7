import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';

describe('durability', () => {
  it('keeps every acknowledged write across kill -9 and restart, and shuts down cleanly on SIGTERM', async () => {
    const first = await startServiceProcess();
    const auth = { Authorization: `Bearer ${first.key}` };
    const project = await rawRequest(`${first.url}/v1/speech/projects`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ key: 'durable', name: 'Durable' }),
    });
    expect(project.status).toBe(201);
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'durable' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), filename: 'd.flac' },
    ]);
    const upload = await rawRequest(`${first.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(upload.status).toBe(201);
    const id = upload.json().id;
    const media = await rawRequest(`${first.url}/v1/speech/transcriptions/${id}/media`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ frame_rate: '24', tape: 'R1' }),
    });
    expect(media.status).toBe(200);
    await first.kill();

    const second = await startServiceProcess({ dataDir: first.dataDir });
    expect(second.key).toBe(first.key);
    expect(second.output()).not.toContain(first.key);
    const session = await (await fetch(`${second.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    expect(session).toMatchObject({ id, project: { key: 'durable' }, media: { frame_rate: '24', tape: 'R1' } });
    expect(fs.existsSync(path.join(first.dataDir, 'recordings', id, 'original.flac'))).toBe(true);
    expect(await second.stop()).toBe(0);
  });
});

describe('one service per data folder', () => {
  it('refuses a second service on a folder in use, leaves the first running, and frees the folder on stop', async () => {
    const first = await startServiceProcess();
    const lock = path.join(first.dataDir, 'service.lock');
    expect(fs.readFileSync(lock, 'utf8').trim()).toBe(String(first.child.pid));
    await expect(startServiceProcess({ dataDir: first.dataDir })).rejects.toThrow(
      new RegExp(`in use by another Takeline service \\(process ${first.child.pid}\\).*TAKELINE_DATA_DIR`),
    );
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect(fs.readFileSync(lock, 'utf8').trim()).toBe(String(first.child.pid));
    expect(await first.stop()).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
    const again = await startServiceProcess({ dataDir: first.dataDir });
    expect(await again.stop()).toBe(0);
  });
});

describe('durable transcription jobs', () => {
  it('resumes a job that was running when the service was killed', { timeout: 600_000 }, async () => {
    const dir = tempDir('takeline-long-');
    const file = path.join(dir, 'two-calls.flac');
    // A minute of real conversation: long enough to be caught mid-job.
    const sample = path.join(audioDir, 'diarization', 'sample.flac');
    spawnSync('ffmpeg', ['-v', 'error', '-i', sample, '-i', sample, '-filter_complex', 'concat=n=2:v=0:a=1', file]);
    const first = await startServiceProcess();
    const auth = { Authorization: `Bearer ${first.key}` };
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'resume' }, { name: 'file', file: fs.readFileSync(file), filename: 'calls.flac' }]);
    const id = (await rawRequest(`${first.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id;
    const status = async (url: string) => (await (await fetch(`${url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { status: string; progress: number; transcript: unknown };
    for (let i = 0; i < 600 && (await status(first.url)).status !== 'running'; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await status(first.url)).status).toBe('running');
    await first.kill();

    const second = await startServiceProcess({ dataDir: first.dataDir });
    let session = await status(second.url);
    expect(['queued', 'running']).toContain(session.status);
    for (let i = 0; i < 2400 && session.status !== 'complete' && session.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      session = await status(second.url);
    }
    expect(session.status).toBe('complete');
    expect(session.transcript).not.toBeNull();
    await second.stop();
  });

  it('cancels the work when a streaming client disconnects, and says so on the session', { timeout: 300_000 }, async () => {
    const svc = await startServiceProcess();
    try {
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(path.join(audioDir, 'long', 'read_speech_concat.flac'))]), 'long.flac');
      form.append('model', 'whisper-1');
      form.append('stream', 'true');
      const controller = new AbortController();
      const res = await fetch(`${svc.url}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${svc.key}` },
        body: form,
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const id = res.headers.get('x-session-id')!;
      controller.abort();
      let session: { status: string; error: string | null } = { status: '', error: null };
      for (let i = 0; i < 200; i++) {
        session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
        if (session.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(session).toMatchObject({ status: 'failed', error: expect.stringMatching(/disconnected/) });
    } finally {
      await svc.stop();
    }
  });
});
