import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { audioDir } from '../helpers/paths';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { backgroundNiceness } from '../../src/service/jobs/background-priority';
import { startWorker, teamEnv, teamQuery, type Worker } from '../helpers/team';

const pg = postgresPerFile();

describe('team server: an API node and workers over PostgreSQL', () => {
  it('transcribes on the workers, not the API node, and a worker killed mid-transcription hands the job to another that finishes it once', { timeout: 600_000 }, async () => {
    const env = await teamEnv(pg(), 'team_server');
    const dataDir = env.TAKELINE_DATA_DIR!;
    const workers: Worker[] = [];
    let api: ServiceProcess | null = null;
    try {
      api = await startServiceProcess({ dataDir, env });
      workers.push(await startWorker(env), await startWorker(env));
      // A worker's work is all background: every thread of it runs below the API node, which stays at ours.
      const threadNiceness = (pid: number) => new Set(fs.readdirSync(`/proc/${pid}/task`).map((tid) => os.getPriority(Number(tid))));
      for (const w of workers) expect(threadNiceness(w.child.pid!)).toEqual(new Set([backgroundNiceness(os.getPriority(), 10)]));
      expect(os.getPriority(api.child.pid!)).toBe(os.getPriority());
      const auth = { Authorization: `Bearer ${api.key}` };
      // A minute of real conversation (the 30-s sample twice): long enough to be killed in the middle.
      const sample = fs.readFileSync(path.join(audioDir, 'diarization', 'sample.flac'));
      const upload = async (file: Buffer, name: string) => {
        const { body, contentType } = multipartBody([
          { name: 'project_key', value: 'team' },
          { name: 'file', file, filename: name },
        ]);
        const res = await rawRequest(`${api!.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
        expect(res.status).toBe(201);
        return res.json().id as string;
      };
      const session = async (id: string) => (await (await fetch(`${api!.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { status: string; progress: number; error: string | null; segments?: unknown[] };
      const id = await upload(sample, 'sample.flac');
      // The worker that took the job says so; it is killed once the transcription is under way.
      let victim: Worker | undefined;
      for (let i = 0; i < 600 && !victim; i++) {
        victim = workers.find((w) => w.output().includes(`(transcribe) started, attempt 1`));
        if (!victim) await new Promise((r) => setTimeout(r, 100));
      }
      expect(victim, 'a worker started the transcription').toBeDefined();
      for (let i = 0; i < 1200 && (await session(id)).progress < 0.2; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await session(id)).status).toBe('running');
      await victim!.kill();
      const survivor = workers.find((w) => w !== victim)!;
      let done = await session(id);
      for (let i = 0; i < 3000 && done.status !== 'complete' && done.status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        done = await session(id);
      }
      expect(done.status, done.error ?? '').toBe('complete');
      expect(survivor.output()).toMatch(/\(transcribe\) started, attempt 2/);
      // The API node recognised nothing itself.
      expect(api.output()).not.toMatch(/\(transcribe\) started/);
      const { transcript } = (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { transcript: { speakers: string[]; segments: Array<{ text: string; speaker: string }> } };
      expect(transcript.segments.map((s) => s.text).join(' ').length).toBeGreaterThan(20);
      expect(transcript.segments.every((seg) => transcript.speakers.includes(seg.speaker))).toBe(true);
      // Exactly one job, run twice (the kill, then the finish), and the upload byte for byte.
      const jobs = await teamQuery(env.TAKELINE_DATABASE_URL!, "SELECT kind, status, attempts FROM jobs WHERE session_id = $1 AND kind = 'transcribe'", [id]);
      expect(jobs).toEqual([{ kind: 'transcribe', status: 'complete', attempts: 2 }]);
      const { url } = (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}/audio`, { headers: auth })).json()) as { url: string };
      const original = await fetch(url);
      expect(original.status).toBe(200);
      const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
      expect(sha(Buffer.from(await original.arrayBuffer()))).toBe(sha(sample));
    } finally {
      for (const w of workers) await w.stop().catch(() => {});
      await api?.stop();
    }
  });

  it('answers POST /v1/audio/transcriptions with a worker’s recognition: whole, streamed, diarized, and cancelled on the worker when the client leaves', { timeout: 600_000 }, async () => {
    const env = await teamEnv(pg(), 'team_openai');
    let api: ServiceProcess | null = null;
    let worker: Worker | null = null;
    try {
      api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env });
      worker = await startWorker(env);
      const client = new OpenAI({ apiKey: api.key, baseURL: `${api.url}/v1`, maxRetries: 0, timeout: 300_000 });
      const lj = () => fs.createReadStream(path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac'));

      const { data: whole, response } = await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1' }).withResponse();
      expect(whole.text.split(' ').length).toBeGreaterThan(5);
      const sessionId = response.headers.get('x-session-id')!;
      const stored = (await (await fetch(`${api.url}/v1/speech/transcriptions/${sessionId}`, { headers: { Authorization: `Bearer ${api.key}` } })).json()) as { status: string };
      expect(stored.status).toBe('complete');

      // Streamed: the deltas the worker published, in order, add up to the done event's text, the same words as above.
      let text = '';
      let deltas = 0;
      let done: { text: string; usage?: unknown } | null = null;
      for await (const event of await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1', stream: true })) {
        if (event.type === 'transcript.text.delta') {
          text += event.delta;
          deltas++;
        }
        if (event.type === 'transcript.text.done') done = event;
      }
      expect(deltas).toBeGreaterThan(0);
      expect(done!.text).toBe(text);
      expect(done!.text).toBe(whole.text);
      expect(done!.usage).toEqual({ type: 'duration', seconds: 10 });

      // Diarized: the turns came back from the worker with the transcript (segments span them, two voices).
      const diarized = (await client.audio.transcriptions.create({
        file: fs.createReadStream(path.join(audioDir, 'diarization', 'sample.flac')),
        model: 'gpt-4o-transcribe-diarize',
        response_format: 'diarized_json' as 'json',
      })) as unknown as { segments: Array<{ speaker: string; start: number; end: number }> };
      expect(new Set(diarized.segments.map((s) => s.speaker)).size).toBeGreaterThan(1);

      // A client that leaves mid-stream: the worker's job is cancelled, and the session says why.
      const controller = new AbortController();
      const leaving = await client.audio.transcriptions.create(
        { file: fs.createReadStream(path.join(audioDir, 'diarization', 'sample.flac')), model: 'whisper-1', stream: true },
        { signal: controller.signal },
      );
      let heard = false;
      try {
        for await (const event of leaving) {
          if (event.type !== 'transcript.text.delta') continue;
          heard = true;
          controller.abort();
          break;
        }
      } catch {
        // The SDK may end the aborted stream with an error or quietly: either way the client has left.
      }
      expect(heard).toBe(true);
      let left: Array<{ status: string; finished: boolean; session_id: string }> = [];
      for (let i = 0; i < 600; i++) {
        left = await teamQuery(env.TAKELINE_DATABASE_URL!, "SELECT j.status, j.finished_at IS NOT NULL AS finished, j.session_id FROM jobs j JOIN sessions s ON s.id = j.session_id WHERE s.file_name = 'sample.flac' AND j.kind = 'transcribe' ORDER BY j.seq", []);
        if (left.length === 2 && left[1]!.finished) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(left.map((j) => [j.status, j.finished])).toEqual([
        ['complete', true],
        ['cancelled', true],
      ]);
      let session = { status: '', error: null as string | null };
      for (let i = 0; i < 300 && session.status !== 'failed'; i++) {
        session = (await (await fetch(`${api.url}/v1/speech/transcriptions/${left[1]!.session_id}`, { headers: { Authorization: `Bearer ${api.key}` } })).json()) as typeof session;
        if (session.status !== 'failed') await new Promise((r) => setTimeout(r, 100));
      }
      expect(session).toMatchObject({ status: 'failed', error: 'The client disconnected before transcription finished.' });

      // Every recognition ran on the worker.
      expect(worker.output().match(/\(transcribe\) started, attempt 1/g)).toHaveLength(4);
      expect(api.output()).not.toMatch(/\(transcribe\) started/);
    } finally {
      await worker?.stop().catch(() => {});
      await api?.stop();
    }
  });
});
