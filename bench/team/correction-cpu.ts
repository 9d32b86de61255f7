/**
 * What a one-line word correction costs a team's API node, which keeps that work (the script alignment
 * goes to a worker): CPU seconds of the node's process tree (its own, ffmpeg's decodes of the line's audio and the
 * PocketSphinx aligner it keeps) and wall time per `PATCH …/transcript/segments/{id}`, on real clips transcribed by
 * a worker that is then stopped (an API node runs no jobs, so nothing else counts).
 *
 *   node --import tsx bench/team/correction-cpu.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { audioDir } from '../../test/helpers/paths';
import { startPostgres } from '../../test/helpers/postgres';
import { multipartBody, rawRequest, startServiceProcess } from '../../test/helpers/service';
import { startWorker, teamEnv } from '../../test/helpers/team';
import { processTreeCpuSeconds } from './tree-cpu';

const CLIPS = ['ljspeech_LJ001-0001.flac', 'amateur_LJ001-0010.flac', 'librispeech_test_clean_1089-134686-0000.flac'];

type Line = { id: number; text: string; words: Array<{ word: string }> };
type Session = { status: string; transcript?: { segments: Line[] } };

const pg = await startPostgres();
const env = await teamEnv(pg, 'correction_cpu');
const api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env });
const headers = { Authorization: `Bearer ${api.key}` };
try {
  const worker = await startWorker(env);
  const ids: string[] = [];
  for (const clip of CLIPS) {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'bench' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', clip)), filename: clip },
    ]);
    ids.push((await rawRequest(`${api.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...headers, 'Content-Type': contentType }, body })).json().id as string);
  }
  const session = async (id: string) => (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}`, { headers })).json()) as Session;
  for (const id of ids) while ((await session(id)).status !== 'complete') await new Promise((r) => setTimeout(r, 500));
  await worker.stop();

  const pid = api.child.pid!;
  console.log('clip\tcorrection\tcpu_s\twall_s\taligned\tinterpolated');
  let revision = 0;
  for (const [k, id] of ids.entries()) {
    revision = 0;
    for (let n = 0; n < 2; n++) {
      // One word of the first line changed to another dictionary word (the word after the first, then the third).
      const line = (await session(id)).transcript!.segments[0]!;
      const words = line.words.map((w) => w.word);
      const at = Math.min(words.length - 1, 1 + 2 * n);
      words[at] = words[at]!.toLowerCase() === 'garden' ? 'window' : 'garden';
      const cpu = processTreeCpuSeconds(pid);
      const started = performance.now();
      const res = await fetch(`${api.url}/v1/speech/transcriptions/${id}/transcript/segments/${line.id}`, {
        method: 'PATCH',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: words.join(' '), base_revision: revision++ }),
      });
      const wall = (performance.now() - started) / 1000;
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      const used = processTreeCpuSeconds(pid) - cpu;
      // Words the aligner placed, and those it could not (spread by syllables): the correction did align.
      const [record] = ((await res.json()) as { revision: { edit: { lines: Array<{ aligned: number[]; interpolated: number[] }> } } }).revision.edit.lines;
      console.log(`${CLIPS[k]}\t${n + 1}\t${used.toFixed(2)}\t${wall.toFixed(2)}\t${record!.aligned.length}\t${record!.interpolated.length}`);
    }
  }
  // Find and replace over a recording: every "the" becomes "a" (one alignment per changed line, one decode for all).
  for (const [k, id] of ids.entries()) {
    const cpu = processTreeCpuSeconds(pid);
    const started = performance.now();
    const res = await fetch(`${api.url}/v1/speech/transcriptions/${id}/transcript/replace`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ find: 'the', replace: 'a', whole_words: true }),
    });
    const wall = (performance.now() - started) / 1000;
    const { count } = (await res.json()) as { count: number };
    console.log(`${CLIPS[k]}\treplace ×${count}\t${(processTreeCpuSeconds(pid) - cpu).toFixed(2)}\t${wall.toFixed(2)}`);
  }
} finally {
  await api.stop();
  await pg.stop();
}
