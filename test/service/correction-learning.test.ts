import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectDetail } from '../../src/shared/schemas/projects';
import { TranscriptEditResult } from '../../src/shared/schemas/transcript-edits';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { resolveSphinxtrain } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { audioDir } from '../helpers/paths';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { until } from '../helpers/poll';

// Corrections teach the recognizer: a corrected line is the supervision of its speaker's adaptation,
// and a typed word the dictionary lacks joins the project's vocabulary.
const FILE = 'amateur_LJ001-0001.flac';
const reference = fs
  .readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8')
  .split('\n')
  .find((l) => l.startsWith(`${FILE}\t`))!
  .split('\t')[2]!;

describe.skipIf(!pocketSphinxAvailable().ok || !resolveSphinxtrain())('corrections teach the recognizer', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let id: string;

  beforeAll(async () => {
    // A transform from one short recording, so the test sees it.
    svc = await startServiceProcess({ env: { TAKELINE_ADAPTATION_MIN_SECONDS: '3' } });
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'learn' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', FILE)), filename: FILE },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    id = res.json().id;
    const session = await until(
      async () => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json(),
      (s) => s.status === 'complete' || s.status === 'failed',
    );
    expect(session.status).toBe('complete');
  }, 400_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const project = async () => ProjectDetail.parse(await (await fetch(`${svc.url}/v1/speech/projects/learn`, { headers: auth })).json());
  const vocabulary = async () => ((await (await fetch(`${svc.url}/v1/speech/projects/learn/vocabulary`, { headers: auth })).json()) as { terms: string[] }).terms;
  const patchLine = (segment: number, body: unknown) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/segments/${segment}`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** The speaker's adaptation once its updated_at is past `after` (the job after an edit ran). */
  const adaptationAfter = async (after: string) => {
    const speakers = await until(project, (p) => (p.speakers[0]?.adaptation?.updated_at ?? '') > after, 300_000);
    // The job ran again (a line left out, or a failed tool, would leave the previous estimate in place).
    expect(speakers.speakers[0]?.adaptation?.updated_at ?? '').toSatisfy((at: string) => at > after);
    return speakers.speakers[0]!.adaptation!;
  };

  it('adapts along the corrected words, says how much corrected speech it uses, and learns a typed name', async () => {
    // The recognizer's words first: nothing corrected.
    const learnt = await adaptationAfter('');
    expect(learnt.corrected_seconds).toBe(0);
    expect(learnt.seconds).toBeGreaterThan(3);

    // The editor corrects the recording's line to what was said: the adaptation is collected again, along those words.
    const session = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as TranscriptEditResult['session'];
    const lines = session.transcript!.segments;
    const line = lines.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
    const words = reference.split(/\s+/);
    // The longest line takes the reference (a one-line transcript, as this one is measured to be, takes all of it).
    const res = await patchLine(line.id, { text: lines.length === 1 ? reference : words.slice(0, Math.max(1, line.words.length)).join(' ') });
    expect(res.status).toBe(200);
    const corrected = await adaptationAfter(learnt.updated_at);
    expect(corrected.corrected_seconds).toBeGreaterThan(2);
    expect(corrected.corrected_seconds).toBeLessThanOrEqual(corrected.seconds);
    expect(await vocabulary()).toEqual([]); // every word of the reference is in the dictionary

    // A typed name the dictionary lacks joins the project's vocabulary, the edit says so, and the line stays
    // supervision (the name pronounced by espeak-ng, not the line left out).
    const before = await vocabulary();
    const named = await patchLine(line.id, { text: 'Okonkwo', word_start: 0, word_end: 0 });
    expect(named.status).toBe(200);
    const edit = TranscriptEditResult.parse(await named.json());
    expect(edit.revision.edit).toMatchObject({ op: 'edit_text', vocabulary_added: ['Okonkwo'] });
    expect(await vocabulary()).toEqual([...before, 'Okonkwo']);
    const again = await adaptationAfter(corrected.updated_at);
    expect(again.corrected_seconds).toBeCloseTo(corrected.corrected_seconds, 0);

    // A refused correction teaches nothing.
    const refused = await patchLine(line.id, { text: 'Siobhan', word_start: 999 });
    expect(refused.status).toBe(422);
    expect(await vocabulary()).toEqual([...before, 'Okonkwo']);
  });

  it('gives a speaker with enough corrected speech MAP means, by which the next recording decodes', async () => {
    // 8 s corrected above, over this service's 3 s minimum: the means sit beside the transform, a whole means file.
    const detail = await project();
    // On the desktop the blob store is the data folder: the estimate's keys are files under adaptation/<project>/<speaker>/<tag>/.
    const speakerDir = path.join(svc.dataDir, 'adaptation', detail.id, detail.speakers[0]!.id);
    const kept = fs.readdirSync(speakerDir, { recursive: true, encoding: 'utf8' });
    expect(kept.filter((f) => path.basename(f) === 'transform.mllr')).toHaveLength(1);
    expect(detail.speakers[0]!.adaptation).toMatchObject({ map_means: true });
    const means = fs.readFileSync(path.join(speakerDir, kept.find((f) => path.basename(f) === 'means')!));
    expect(means.length).toBe(fs.statSync(path.join(resolvePocketSphinxModel().hmm, 'means')).size);
    // The reader's next recording decodes its chunks as the adapted speaker's, and reads as the reader.
    const next = 'amateur_LJ001-0010.flac';
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'learn' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', next)), filename: next },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    const done = await until(
      async () => (await fetch(`${svc.url}/v1/speech/transcriptions/${res.json().id}`, { headers: auth })).json(),
      (s) => s.status === 'complete' || s.status === 'failed',
      300_000,
    );
    expect(done.status).toBe('complete');
    expect(done.transcript.adaptation.speakers).toEqual([expect.objectContaining({ speaker_id: detail.speakers[0]!.id })]);
    expect(done.transcript.text.split(/\s+/).length).toBeGreaterThan(5);
    // The adaptation job said what it made.
    expect(svc.output()).toMatch(/MAP means from \d+\.\d s corrected/);
  });
});
