import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';

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
