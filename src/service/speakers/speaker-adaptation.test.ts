import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeAudioToArray } from '../media/decode';
import { resolveMediaTools } from '../media/tools';
import { float32ToInt16Le } from '../speech/recognition/pocketsphinx/pcm';
import { resolveSphinxtrain, type SphinxtrainTools } from '../speech/recognition/pocketsphinx/adaptation';
import { openDatabase } from '../storage/database';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { SqlAdaptationStore } from '../storage/adaptation-store';
import { FolderBlobStore } from '../storage/blobs/folder-blob-store';
import { stateKeys } from './adaptation-files';
import { parseMllrMatrix, mllrDistance } from '../speech/recognition/pocketsphinx/mllr-file';
import { meanShift, readGaussianFile, sameShape } from '../speech/recognition/pocketsphinx/gaussian-file';
import { resolvePocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { alignableWords, dictionaryWord, keptRecordings, SpeakerAdaptation, wordPieces, type AdaptationSettings } from './speaker-adaptation';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const PROJECT = '00000000-0000-4000-8000-000000000001';
const SPEAKER = '00000000-0000-4000-8000-000000000002';
const session = (n: number) => `00000000-0000-4000-8000-1000000000${String(n).padStart(2, '0')}`;
const settings: AdaptationSettings = { enabled: true, minSeconds: 10, maxSeconds: 20, maxRecordings: 10, alignAdapted: false, withinRecording: false };

describe('keptRecordings', () => {
  it('keeps the newest recordings within the seconds and count bounds, at least one', () => {
    const r = (at: string, seconds: number) => ({ at, seconds });
    const list = [r('2026-01-01', 8), r('2026-01-03', 8), r('2026-01-02', 8)];
    const { kept, dropped } = keptRecordings(list, { maxSeconds: 17, maxRecordings: 5 });
    expect(kept.map((k) => k.at)).toEqual(['2026-01-03', '2026-01-02']);
    expect(dropped.map((k) => k.at)).toEqual(['2026-01-01']);
    expect(keptRecordings(list, { maxSeconds: 5, maxRecordings: 5 }).kept).toHaveLength(1);
    expect(keptRecordings(list, { maxSeconds: 100, maxRecordings: 1 }).kept.map((k) => k.at)).toEqual(['2026-01-03']);
  });
});

describe('keptRecordings with corrected lines', () => {
  it('keeps corrected lines’ statistics before recognized ones, newest first within each', () => {
    const r = (at: string, seconds: number, corrected = false) => ({ at, seconds, ...(corrected ? { corrected } : {}) });
    const list = [r('2026-01-01', 8, true), r('2026-01-04', 8), r('2026-01-02', 8, true), r('2026-01-03', 8)];
    const { kept, dropped } = keptRecordings(list, { maxSeconds: 24, maxRecordings: 5 });
    // The two corrected ones, though older, then the newest recognized one; the older recognized one goes.
    expect(kept.map((k) => k.at)).toEqual(['2026-01-02', '2026-01-01', '2026-01-04']);
    expect(dropped.map((k) => k.at)).toEqual(['2026-01-03']);
  });
  it('keeps every corrected recording within the seconds bound, however many; the count bounds the recognized ones', () => {
    // 30 corrected recordings of 7 s and 25 recognized ones, under the service's bounds (600 s, 20).
    const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}`;
    const list: Array<{ at: string; seconds: number; corrected?: boolean }> = [
      ...Array.from({ length: 30 }, (_, i) => ({ at: day(i + 1), seconds: 7, corrected: true })),
      ...Array.from({ length: 25 }, (_, i) => ({ at: `2026-02-${String(i + 1).padStart(2, '0')}`, seconds: 7 })),
    ];
    const { kept, dropped } = keptRecordings(list, { maxSeconds: 600, maxRecordings: 20 });
    expect(kept.filter((k) => k.corrected)).toHaveLength(30);
    // The 20 newest recognized ones; the 5 oldest go.
    expect(kept.filter((k) => !k.corrected)).toHaveLength(20);
    expect(dropped.map((k) => k.at)).toEqual(['2026-02-05', '2026-02-04', '2026-02-03', '2026-02-02', '2026-02-01']);
    // The seconds bound still holds for corrected speech.
    expect(keptRecordings(list, { maxSeconds: 70, maxRecordings: 20 }).kept).toHaveLength(10);
  });
});

describe('wordPieces and alignableWords', () => {
  const dict = new Set(['picture', 'books', 'a', 'm', 'debtors', 'nine', 'the', "don't"]);
  it('looks up a typed word as written, then without quote marks, then by its parts', () => {
    expect(wordPieces("Don't,", dict)).toEqual(["don't"]);
    expect(wordPieces("debtors'", dict)).toEqual(['debtors']);
    expect(wordPieces('picture-books', dict)).toEqual(['picture', 'books']);
    expect(wordPieces('a.m.,', dict)).toEqual(['a', 'm']);
    expect(wordPieces('—', dict)).toEqual([]);
    expect(wordPieces('Subiaco', dict)).toEqual(['subiaco']);
  });
  it('spells a corrected line for Baum-Welch, or refuses it when a piece has no entry', () => {
    const line = (text: string) => text.split(' ').map((word) => ({ word }));
    expect(alignableWords(line("The debtors' picture-books — nine a.m."), dict)).toEqual(['the', 'debtors', 'picture', 'books', 'nine', 'a', 'm']);
    expect(alignableWords(line('The Subiaco books'), dict)).toBeNull();
  });
});

describe('dictionaryWord', () => {
  it('spells a written word as the dictionary does, or null when it has none', () => {
    const dict = new Set(['hello', "don't", 'i']);
    expect(dictionaryWord('Hello,', dict)).toBe('hello');
    expect(dictionaryWord("Don't.", dict)).toBe("don't");
    expect(dictionaryWord('I', dict)).toBe('i');
    expect(dictionaryWord('Zyxwv', dict)).toBeNull();
    expect(dictionaryWord('—', dict)).toBeNull();
  });
});

let references: Map<string, string> | null = null;

/** A recording of ../shared/audio/asr as a Baum-Welch chunk with its reference words, as the dictionary spells them. */
async function readerChunk(file: string, dictionary: ReadonlySet<string>) {
  references ??= new Map(
    fs
      .readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split('\t'))
      .map(([name, , text]) => [name!, text!]),
  );
  const pcm = await decodeAudioToArray(path.join(asrDir, file), resolveMediaTools());
  const words = references.get(file)!.split(/\s+/).map((w) => dictionaryWord(w.replace(/-/g, ''), dictionary) ?? '');
  return { id: file.replace(/\W/g, '_'), pcm: float32ToInt16Le(pcm), hypothesis: words.filter(Boolean).join(' ') };
}

function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-adaptation-'));
}

/**
 * A SpeakerAdaptation as the desktop composes it: the state in an SQLite database in `root` (with the project
 * speaker's row it belongs to), the files in a folder store rooted at `root` (the data folder).
 */
function adaptationIn(root: string, options: AdaptationSettings, tools: SphinxtrainTools | null, store?: SqlAdaptationStore) {
  const db = openDatabase(path.join(root, 'takeline.db'));
  db.prepare("INSERT OR IGNORE INTO projects (id, key, name, created_at) VALUES (?, 'p', 'P', '2026-01-01T00:00:00Z')").run(PROJECT);
  db.prepare("INSERT OR IGNORE INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES (?, ?, 1, 'A', 'S1', '{}', '2026-01-01T00:00:00Z')").run(SPEAKER, PROJECT);
  store ??= new SqlAdaptationStore(new SqliteSql(db));
  const adaptation = new SpeakerAdaptation(options, {
    model: resolvePocketSphinxModel(),
    tools,
    store,
    blobs: new FolderBlobStore(root),
    cacheDir: root,
    scratchDir: path.join(root, 'scratch'),
  });
  return { adaptation, store };
}

/** The speaker's current decoding files (local copies), or null. */
async function decodingFiles(adaptation: SpeakerAdaptation): Promise<{ transform: string; means?: string } | null> {
  const held = await adaptation.decoding(PROJECT);
  held.release();
  return held.speakers.get(SPEAKER) ?? null;
}

/** The speaker's objects in the folder store, as keys. */
function storedKeys(root: string): string[] {
  const dir = path.join(root, 'adaptation', PROJECT, SPEAKER);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

describe('SpeakerAdaptation without sphinxtrain (the fallback)', () => {
  it('estimates nothing and offers no transform', async () => {
    const root = tempRoot();
    try {
      const { adaptation } = adaptationIn(root, settings, null);
      expect(adaptation.estimating).toBe(false);
      const chunk = { id: 'c', pcm: Buffer.alloc(32000 * 20), hypothesis: 'hello world' };
      expect(await adaptation.addRecording(PROJECT, SPEAKER, session(1), [chunk])).toBeNull();
      expect(await decodingFiles(adaptation)).toBeNull();
      expect(await adaptation.summary(PROJECT, SPEAKER)).toBeNull();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!resolveSphinxtrain() || !fs.existsSync(resolvePocketSphinxModel().dict))('SpeakerAdaptation with sphinxtrain', () => {
  const root = tempRoot();
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const { adaptation, store } = adaptationIn(root, settings, resolveSphinxtrain());
  const chunkOf = (file: string) => readerChunk(file, adaptation.words());

  it('waits for enough speech, then solves one transform from the kept recordings, bounded and replaceable', async () => {
    // 8.4 s: under the 10 s minimum, statistics kept but no transform yet.
    expect(await adaptation.addRecording(PROJECT, SPEAKER, session(1), [await chunkOf('amateur_LJ001-0001.flac')])).toBeNull();
    expect(await decodingFiles(adaptation)).toBeNull();
    expect(await adaptation.hasRecording(PROJECT, SPEAKER, session(1))).toBe(true);
    const second = await adaptation.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf('amateur_LJ001-0010.flac')]);
    expect(second).toMatchObject({ recordings: 2 });
    expect(second!.seconds).toBeGreaterThan(15);
    const file = (await decodingFiles(adaptation))!.transform;
    const moved = mllrDistance(parseMllrMatrix(fs.readFileSync(file, 'utf8')));
    expect(moved.matrix).toBeGreaterThan(0.01); // a real estimate, not the identity
    expect(await adaptation.summary(PROJECT, SPEAKER)).toEqual(second);
    expect(await adaptation.summaries(PROJECT)).toEqual(new Map([[SPEAKER, second]]));
    // A third recording pushes the oldest out (20 s bound).
    const third = await adaptation.addRecording(PROJECT, SPEAKER, session(3), [await chunkOf('amateur_LJ001-0049.flac')]);
    expect(third).toMatchObject({ recordings: 2 });
    const stored = (await store.get(SPEAKER))!;
    expect(stored.version).toBe(3);
    expect(stored.state.recordings.map((r) => r.id).sort()).toEqual([session(2), session(3)]);
    expect(await adaptation.hasRecording(PROJECT, SPEAKER, session(1))).toBe(false);
    // The store holds exactly what the state names: the dropped recording's sums and the superseded transforms went.
    expect(storedKeys(root)).toEqual(stateKeys(stored.state).sort());
    expect(fs.readdirSync(path.join(root, 'scratch')).filter((n) => n.startsWith('work-'))).toEqual([]);
  });

  it('with alignAdapted, collects a later recording along the speaker’s transform, which then moves the estimate', async () => {
    const files = ['amateur_LJ001-0001.flac', 'amateur_LJ001-0010.flac', 'amateur_LJ001-0049.flac'];
    const transforms: string[] = [];
    for (const alignAdapted of [false, true]) {
      const dir = fs.mkdtempSync(path.join(root, 'aligned-'));
      const each = adaptationIn(dir, { ...settings, alignAdapted }, resolveSphinxtrain()).adaptation;
      for (const [i, file] of files.entries()) await each.addRecording(PROJECT, SPEAKER, session(i + 1), [await chunkOf(file)]);
      transforms.push(fs.readFileSync((await decodingFiles(each))!.transform, 'utf8'));
    }
    // The second recording was collected before any transform existed, the third along one: only the third's
    // statistics differ, and with them the transform solved from both.
    const [plain, aligned] = transforms.map((t) => parseMllrMatrix(t));
    expect(mllrDistance(aligned!).matrix).toBeGreaterThan(0.01);
    expect(transforms[1]).not.toBe(transforms[0]);
    expect(plain).not.toEqual(aligned);
  });

  it('adds two recordings of one speaker estimated at once: neither is lost (one estimate at a time)', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'together-'));
    const first = adaptationIn(dir, settings, resolveSphinxtrain());
    // Two workers of one process (the desktop): the same store, so the same lock.
    const second = adaptationIn(dir, settings, resolveSphinxtrain(), first.store).adaptation;
    const [a, b] = await Promise.all([
      first.adaptation.addRecording(PROJECT, SPEAKER, session(1), [await chunkOf('amateur_LJ001-0001.flac')]),
      second.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf('amateur_LJ001-0010.flac')]),
    ]);
    // Whichever ran second solved the transform from both.
    expect([a, b].map((x) => x?.recordings ?? 0)).toContain(2);
    expect((await first.store.get(SPEAKER))!.state.recordings.map((r) => r.id).sort()).toEqual([session(1), session(2)]);
  });

  it('keeps the previous transform when a tool fails, and removes a deleted speaker’s files', async () => {
    const before = fs.readFileSync((await decodingFiles(adaptation))!.transform, 'utf8');
    const keys = storedKeys(root);
    // The same data folder with a bw that fails.
    const fake = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-fake-bw-'));
    try {
      for (const tool of ['bw', 'mllr_solve']) fs.writeFileSync(path.join(fake, tool), '#!/bin/sh\necho broken >&2\nexit 1\n', { mode: 0o755 });
      const broken = adaptationIn(root, settings, { ...resolveSphinxtrain()!, dir: fake }).adaptation;
      await expect(broken.addRecording(PROJECT, SPEAKER, session(4), [await chunkOf('amateur_LJ001-0058.flac')])).rejects.toThrow(/bw failed/);
    } finally {
      fs.rmSync(fake, { recursive: true, force: true });
    }
    expect(fs.readFileSync((await decodingFiles(adaptation))!.transform, 'utf8')).toBe(before);
    expect(await adaptation.summary(PROJECT, SPEAKER)).toMatchObject({ recordings: 2 });
    expect(storedKeys(root)).toEqual(keys);
    // A live speaker's named objects stay, however old; a deleted speaker's go.
    expect(await adaptation.sweep(PROJECT, async () => new Set([SPEAKER]), 0)).toBe(0);
    expect(await adaptation.sweep(PROJECT, async () => new Set(), 0)).toBe(keys.length);
    expect(fs.existsSync(path.join(root, 'adaptation', PROJECT, SPEAKER))).toBe(false);
  });
});

describe.skipIf(!resolveSphinxtrain() || !fs.existsSync(resolvePocketSphinxModel().dict))('SpeakerAdaptation: MAP means from corrected speech', () => {
  const root = tempRoot();
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const model = resolvePocketSphinxModel();
  const files = ['amateur_LJ001-0001.flac', 'amateur_LJ001-0010.flac'];

  it('keeps to the transform alone without corrected speech, and adds MAP means once there is enough of it', async () => {
    const { adaptation } = adaptationIn(root, settings, resolveSphinxtrain());
    const chunkOf = (file: string, corrected: boolean) => readerChunk(file, adaptation.words()).then((c) => ({ ...c, corrected }));
    // Recognized lines only (here the reference words, but not marked corrected): a transform, no means.
    for (const [i, file] of files.entries()) await adaptation.addRecording(PROJECT, SPEAKER, session(i + 1), [await chunkOf(file, false)]);
    expect((await decodingFiles(adaptation))!.transform).toBeTruthy();
    expect((await decodingFiles(adaptation))!.means).toBeUndefined();
    // One recording corrected: 8.4 s, under the 10 s minimum, still none.
    const under = await adaptation.addRecording(PROJECT, SPEAKER, session(1), [await chunkOf(files[0]!, true)]);
    expect((await decodingFiles(adaptation))!.means).toBeUndefined();
    expect(under!.map_means).toBe(false);
    // Both corrected: the means of the model's shape, moved from the transform's prior only where the speech reached.
    const summary = await adaptation.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf(files[1]!, true)]);
    expect(summary!.corrected_seconds).toBeGreaterThan(15);
    expect(summary!.map_means).toBe(true);
    expect((await adaptation.summary(PROJECT, SPEAKER))!.map_means).toBe(true);
    const means = (await decodingFiles(adaptation))!.means!;
    expect(means).toBeTruthy();
    const base = readGaussianFile(fs.readFileSync(path.join(model.hmm, 'means')));
    const adapted = readGaussianFile(fs.readFileSync(means));
    expect(sameShape(base, adapted)).toBe(true);
    const shift = meanShift(base, adapted, readGaussianFile(fs.readFileSync(path.join(model.hmm, 'variances'))));
    expect(shift.movedShare).toBeGreaterThan(0.05);
    expect(shift.maxSigmas).toBeGreaterThan(0.1);
    expect(shift.maxSigmas).toBeLessThan(100); // the transform and MAP together, not garbage
    // A failing map_adapt leaves the new transform alone (the earlier means go with the earlier estimate).
    const fake = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-fake-map-'));
    try {
      const real = resolveSphinxtrain()!;
      for (const tool of ['bw', 'mllr_solve', 'mllr_transform']) fs.symlinkSync(path.join(real.dir, tool), path.join(fake, tool));
      fs.writeFileSync(path.join(fake, 'map_adapt'), '#!/bin/sh\necho broken >&2\nexit 1\n', { mode: 0o755 });
      const broken = adaptationIn(root, settings, { ...real, dir: fake }).adaptation;
      expect(await broken.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf(files[1]!, true)])).toMatchObject({ recordings: 2, map_means: false });
      expect((await decodingFiles(broken))!.means).toBeUndefined();
    } finally {
      fs.rmSync(fake, { recursive: true, force: true });
    }
    await adaptation.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf(files[1]!, true)]);
    expect((await decodingFiles(adaptation))!.means).toBeTruthy();
    // With MAP switched off the next estimate removes them (the decoder goes back to the transform).
    const off = adaptationIn(root, { ...settings, mapFromCorrections: false }, resolveSphinxtrain()).adaptation;
    await off.addRecording(PROJECT, SPEAKER, session(2), [await chunkOf(files[1]!, true)]);
    expect((await decodingFiles(off))!.means).toBeUndefined();
    expect((await decodingFiles(off))!.transform).toBeTruthy();
  });
});

describe.skipIf(!resolveSphinxtrain() || !fs.existsSync(resolvePocketSphinxModel().dict))('SpeakerAdaptation.recordingEstimator (within one recording)', () => {
  const root = tempRoot();
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const within = { ...settings, withinRecording: true };
  const { adaptation } = adaptationIn(root, within, resolveSphinxtrain());
  const chunkOf = (file: string) => readerChunk(file, adaptation.words());

  it('is offered only when switched on and the tools are here', () => {
    expect(adaptationIn(root, settings, resolveSphinxtrain()).adaptation.recordingEstimator(path.join(root, 'x'))).toBeNull();
    expect(adaptationIn(root, within, null).adaptation.recordingEstimator(path.join(root, 'x'))).toBeNull();
    expect(adaptationIn(root, { ...within, enabled: false }, resolveSphinxtrain()).adaptation.recordingEstimator(path.join(root, 'x'))).toBeNull();
  });

  it('grows each voice’s transform batch by batch from its own speech, then removes its files', async () => {
    const work = path.join(root, 'voices-1');
    const estimator = adaptation.recordingEstimator(work)!;
    // 8.4 s of voice 0: under the 10 s minimum.
    expect(await estimator.estimate(0, [await chunkOf('amateur_LJ001-0001.flac')], null)).toBeNull();
    const first = await estimator.estimate(0, [await chunkOf('amateur_LJ001-0010.flac')], null);
    expect(first).toMatch(/\.mllr$/);
    expect(mllrDistance(parseMllrMatrix(fs.readFileSync(first!, 'utf8'))).matrix).toBeGreaterThan(0.01);
    // Voice 1 starts from nothing: its 8 s alone are not enough.
    expect(await estimator.estimate(1, [await chunkOf('amateur_LJ001-0049.flac')], null)).toBeNull();
    // A third batch of voice 0, aligned along its transform: a new file (the decoder reloads on a new name).
    const second = await estimator.estimate(0, [await chunkOf('amateur_LJ001-0058.flac')], first);
    expect(second).not.toBe(first);
    expect(fs.readFileSync(second!, 'utf8')).not.toBe(fs.readFileSync(first!, 'utf8'));
    await estimator.close();
    expect(fs.existsSync(work)).toBe(false);
    await expect(estimator.estimate(0, [await chunkOf('amateur_LJ001-0001.flac')], null)).rejects.toThrow();
    expect(fs.existsSync(work)).toBe(false);
  });

  it('stops a running estimate at close, leaving no tool running and no files', async () => {
    const work = path.join(root, 'voices-2');
    const estimator = adaptation.recordingEstimator(work)!;
    const chunks = await Promise.all(['amateur_LJ001-0001.flac', 'amateur_LJ001-0010.flac', 'amateur_LJ001-0049.flac'].map(chunkOf));
    const running = estimator.estimate(0, chunks, null);
    // Once bw has its files, stop it.
    const deadline = Date.now() + 20_000;
    while (!fs.existsSync(path.join(work, 'v0')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await estimator.close();
    // A stop, not a failing tool: the caller says nothing of it.
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(fs.existsSync(work)).toBe(false);
    const tools = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((pid) => {
      try {
        return [fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')];
      } catch {
        return [];
      }
    });
    expect(tools.filter((cmd) => cmd.includes(work))).toEqual([]);
  });
});
