import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { spawnSync } from 'node:child_process';
import { waitFor } from '../helpers/crash';
import { tempDir } from '../helpers/temp';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { resolveSphinxtrain } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import type { AdaptationState } from '../../src/service/storage/adaptation-store';
import Database from 'better-sqlite3';

// Two recordings of the same reader: the first teaches the project speaker's transform, the second uses it.
const FIRST = 'amateur_LJ001-0001.flac';
const SECOND = 'amateur_LJ001-0010.flac';

async function transcribe(svc: ServiceProcess, file: string, projectKey = 'reader') {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: projectKey },
    { name: 'file', file: fs.readFileSync(path.isAbsolute(file) ? file : path.join(audioDir, 'asr', file)), filename: path.basename(file) },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType },
    body,
  });
  expect(res.status).toBe(201);
  const id = res.json().id as string;
  return waitFor(async () => {
    const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    if (session.status === 'failed') throw new Error(session.error);
    return session.status === 'complete' ? session : null;
  }, `transcription of ${file}`);
}

const project = async (svc: ServiceProcess) =>
  (await fetch(`${svc.url}/v1/speech/projects/reader`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();

describe.skipIf(!pocketSphinxAvailable().ok || !resolveSphinxtrain())('speaker adaptation across a project’s recordings', () => {
  let adapting: ServiceProcess;
  let noTools: ServiceProcess;
  let off: ServiceProcess;
  beforeAll(async () => {
    [adapting, noTools, off] = await Promise.all([
      startServiceProcess({ env: { TAKELINE_ADAPTATION_MIN_SECONDS: '5' } }),
      startServiceProcess({ env: { TAKELINE_ADAPTATION_MIN_SECONDS: '5', TAKELINE_SPHINXTRAIN_DIR: '/nonexistent' } }),
      startServiceProcess({ env: { TAKELINE_SPEAKER_ADAPTATION: 'off' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([adapting?.stop(), noTools?.stop(), off?.stop()]);
  });

  it('decodes a known speaker’s second recording with the transform learnt from the first, and says so', async () => {
    const first = await transcribe(adapting, FIRST);
    expect(first.transcript.adaptation).toBeUndefined(); // nothing learnt yet
    // The adaptation job runs after the transcription completes.
    const speakers = await waitFor(async () => {
      const list = (await project(adapting)).speakers;
      return list[0]?.adaptation ? list : null;
    }, 'the speaker adaptation');
    expect(speakers).toHaveLength(1);
    expect(speakers[0].adaptation).toMatchObject({ recordings: 1, updated_at: expect.any(String) });
    expect(speakers[0].adaptation.seconds).toBeGreaterThan(5);

    const second = await transcribe(adapting, SECOND);
    expect(second.speaker_map.S1).toMatchObject({ speaker_id: speakers[0].id, matched: true });
    const adaptation = second.transcript.adaptation;
    expect(adaptation.chunks).toBeGreaterThan(0);
    expect(adaptation.speakers).toEqual([{ speaker_id: speakers[0].id, chunks: adaptation.chunks, seconds: expect.any(Number) }]);

    // Without sphinxtrain nothing is learnt and the words are those of a service with adaptation off.
    const plain = await Promise.all([transcribe(noTools, FIRST).then(() => transcribe(noTools, SECOND)), transcribe(off, FIRST).then(() => transcribe(off, SECOND))]);
    expect(plain[0].transcript.adaptation).toBeUndefined();
    expect((await project(noTools)).speakers.map((s: { adaptation: unknown }) => s.adaptation)).toEqual([null]);
    expect(plain[0].transcript.segments).toEqual(plain[1].transcript.segments);
    // The adapted decode is a different model: at least the posteriors moved.
    expect(second.transcript.segments).not.toEqual(plain[1].transcript.segments);
  }, 300_000);

  it('within one recording, decodes a voice’s later chunks with a transform fitted to its earlier ones', async () => {
    // Six of the reader's recordings joined (≈ 50 s, one chunk or more each): one voice, enough speech for a
    // transform after the first chunk (5 s minimum here).
    const joined = path.join(tempDir('takeline-within-'), 'reader.flac');
    const files = ['0001', '0010', '0035', '0049', '0058', '0066'].map((n) => path.join(audioDir, 'asr', `amateur_LJ001-${n}.flac`));
    const ffmpeg = spawnSync('ffmpeg', ['-v', 'error', ...files.flatMap((f) => ['-i', f]), '-filter_complex', `concat=n=${files.length}:v=0:a=1`, joined]);
    expect(ffmpeg.status).toBe(0);
    const [adapted, plain] = await Promise.all([transcribe(adapting, joined, 'joined'), transcribe(off, joined, 'joined')]);
    const within = adapted.transcript.adaptation.within_recording;
    expect(within.voices).toBeGreaterThanOrEqual(1);
    expect(within.transforms).toBeGreaterThanOrEqual(1);
    expect(within.chunks).toBeGreaterThan(0);
    expect(adapted.transcript.adaptation.speakers).toEqual([]); // a new project: no project speaker's transform
    expect(plain.transcript.adaptation).toBeUndefined();
    expect(adapted.transcript.segments).not.toEqual(plain.transcript.segments);
    // The recording's statistics are gone once its transcript is.
    expect(fs.readdirSync(path.join(adapting.dataDir, 'scratch')).filter((n) => n.startsWith('voices-'))).toEqual([]);
  }, 300_000);

  it('keeps a desktop data folder’s adaptation from before: its files move onto the storage at start, and decoding uses them', async () => {
    const before = await project(adapting);
    const [projectId, speakerId] = [before.id as string, before.speakers[0].id as string];
    const dataDir = adapting.dataDir;
    await adapting.stop();
    // The speaker's adaptation laid out as a Takeline from before the blob store kept it, and no state in the database.
    const db = new Database(path.join(dataDir, 'takeline.db'));
    const { state_json } = db.prepare('SELECT state_json FROM speaker_adaptations WHERE speaker_id = ?').get(speakerId) as { state_json: string };
    db.prepare('DELETE FROM speaker_adaptations WHERE speaker_id = ?').run(speakerId);
    db.close();
    const state = JSON.parse(state_json) as AdaptationState;
    const dir = path.join(dataDir, 'adaptation', projectId, speakerId);
    for (const r of state.recordings) {
      fs.mkdirSync(path.join(dir, 'rec', r.id), { recursive: true });
      for (const f of r.files) fs.copyFileSync(path.join(dataDir, r.prefix, f), path.join(dir, 'rec', r.id, f));
      fs.writeFileSync(path.join(dir, 'rec', `${r.id}.json`), JSON.stringify({ seconds: r.seconds, at: r.at }));
    }
    fs.copyFileSync(path.join(dataDir, state.transform!), path.join(dir, 'transform.mllr'));
    fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify(state.summary));
    for (const name of fs.readdirSync(dir)) if (/^v\d+-/.test(name)) fs.rmSync(path.join(dir, name), { recursive: true });

    adapting = await startServiceProcess({ dataDir, env: { TAKELINE_ADAPTATION_MIN_SECONDS: '5' } });
    expect((await project(adapting)).speakers[0].adaptation).toEqual(state.summary);
    // Moved under an estimate's keys: only that folder is left.
    expect(fs.readdirSync(dir)).toEqual([expect.stringMatching(/^v1-[0-9a-f]{8}$/)]);
    const again = await transcribe(adapting, SECOND);
    expect(again.transcript.adaptation.speakers).toEqual([expect.objectContaining({ speaker_id: speakerId })]);
  }, 300_000);
});
