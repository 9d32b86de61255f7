import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, repoRoot } from '../helpers/paths';
import { createSession, download, revoiceToEnd, sessionSettled, wavBytes } from '../helpers/dubs';
import { validate } from '@readme/openapi-parser';
import { secondsToTimecode } from '../../src/shared/timecode';

interface Line {
  id: number;
  speaker: string;
  start: number;
  end: number;
  text: string;
  original_text: string;
  original_start: number;
  original_end: number;
  state: string;
  needs_revoice: boolean;
  review_status: string;
  notes: Array<{ id: string; author: string; text: string; line_id: number }>;
  history: Array<{ op: string; from: Array<{ id: number; text: string }> }>;
  words: Array<{ word: string; start: number; end: number }>;
}

/**
 * The supervisor's workflow over HTTP: a dub of the recording itself, line split / merge with
 * undo and redo, review status and notes.
 */
describe('dubbing workflow: dub from the recording, split, merge, undo, review', () => {
  let svc: ServiceProcess;
  let sessionId: string;
  let dubId: string;
  let supervisorKey: string;
  const sessionApi = (p: string, init: RequestInit = {}, key = svc.key) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const api = (p: string, init: RequestInit = {}, key?: string) => sessionApi(`/dubs${p}`, init, key);
  const post = (p: string, body?: unknown, key?: string) => api(p, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, key);
  const patch = (p: string, body: unknown) => api(p, { method: 'PATCH', body: JSON.stringify(body) });
  const lines = async (query = ''): Promise<Line[]> => (await (await api(`/${dubId}/lines${query}`)).json()).data;
  /** Starts a revoice and follows it to its end (the machine may be busy: no fixed wait). */
  const revoiceAll = () => revoiceToEnd(api, dubId);
  const dubFolders = () => {
    const folder = path.join(svc.dataDir, 'recordings', sessionId, 'dubs');
    return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
  };

  beforeAll(async () => {
    svc = await startServiceProcess();
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', 'ada-supervisor'], {
      cwd: repoRoot,
      env: { ...process.env, TAKELINE_DATA_DIR: svc.dataDir },
      encoding: 'utf8',
    });
    supervisorKey = made.stdout.trim();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses a dub from a recording without a completed transcript (409), then makes one from its current transcript revision', { timeout: 300_000 }, async () => {
    sessionId = await createSession(svc, 'dub-workflow');
    // Asked at once, while the recording is still queued for (or in) transcription.
    const early = await post('', { source: 'recording' });
    expect(early.status).toBe(409);
    expect((await early.json()).detail).toMatch(/no completed transcript/);
    await sessionSettled(svc, sessionId);
    const session = await (await sessionApi('')).json();
    expect(session.status).toBe('complete');

    // Bad input: the validation shape, and nothing is made.
    const bad: Array<[unknown, string, Array<string | number>]> = [
      [{ source: 'upload' }, 'literal_error', ['body', 'source']],
      [{}, 'missing', ['body', 'source']],
      [{ source: 'recording', voices: { S9: 'flite/rms' } }, 'unknown_speaker', ['body', 'voices', 'S9']],
      [{ source: 'recording', voices: { S1: 'flite/nobody' } }, 'voice_not_found', ['body', 'voices', 'S1']],
      [{ source: 'recording', default_voice: 'flite/nobody' }, 'voice_not_found', ['body', 'default_voice']],
      [{ source: 'recording', name: '' }, 'string_too_short', ['body', 'name']],
      [{ source: 'recording', lines: [] }, 'extra_forbidden', ['body', 'lines']],
    ];
    for (const [body, type, loc] of bad) {
      const res = await post('', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).detail[0], JSON.stringify(body)).toMatchObject({ type, loc });
    }
    expect((await (await api('')).json()).data).toEqual([]);
    expect(dubFolders()).toEqual([]);

    // The editor corrects the transcript first (split its first line); the dub takes the current revision.
    const first = session.transcript.segments[0];
    expect(first.words.length).toBeGreaterThan(6);
    const split = await sessionApi('/transcript/split', { method: 'POST', body: JSON.stringify({ segment_id: first.id, word_index: 3 }) });
    expect(split.status, await split.clone().text()).toBe(200);
    const transcript = (await (await sessionApi('')).json()).transcript;
    expect(transcript.segments.length).toBe(session.transcript.segments.length + 1);

    const res = await post('', { source: 'recording', name: 'Take 1 dub', voices: { S1: 'flite/rms' } });
    expect(res.status, await res.clone().text()).toBe(201);
    const dub = await res.json();
    dubId = dub.id;
    expect(res.headers.get('location')).toBe(`/v1/speech/transcriptions/${sessionId}/dubs/${dub.id}`);
    expect(dub).toMatchObject({ name: 'Take 1 dub', file_name: 'take.flac', source: 'recording', transcript_revision: 1, voices: { S1: 'flite/rms' } });
    expect(dub.status).toBe('preparing');
    const seen: Array<{ status: string; progress: number; stage: string | null }> = [];
    let current = dub;
    for (let i = 0; i < 600 && current.status === 'preparing'; i++) {
      seen.push({ status: current.status, progress: current.progress, stage: current.stage });
      await new Promise((r) => setTimeout(r, 50));
      current = await (await api(`/${dubId}`)).json();
    }
    expect(current).toMatchObject({ status: 'ready', progress: 1, stage: 'complete', format: { sample_rate: 16000, channels: 1, sample_format: 's16' } });
    expect(seen.every((s) => s.progress >= 0 && s.progress < 1)).toBe(true);
    // The reader's pitch, from the recording's audio: a man's.
    expect(current.speaker_pitch.S1).toMatchObject({ gender: 'male' });

    // The lines are the transcript's current lines, with their word timings.
    const read = await lines();
    expect(read.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: l.text }))).toEqual(
      transcript.segments.map((s: { speaker: string; start: number; end: number; text: string }, i: number) => ({ id: i + 1, speaker: s.speaker, start: s.start, end: s.end, text: s.text.trim() })),
    );
    expect(read.every((l) => l.state === 'original' && !l.needs_revoice && l.review_status === 'todo' && l.notes.length === 0)).toBe(true);
    expect(read[0]!.words.map((w) => w.word)).toEqual(transcript.segments[0].words.map((w: { word: string }) => w.word.trim()));
    expect(current.review).toEqual({ todo: read.length, needs_changes: 0, approved: 0, left: read.length });

    // Revision 1 is the recording's own audio, sample for sample.
    const { data: revisions } = await (await api(`/${dubId}/revisions`)).json();
    expect(revisions).toMatchObject([{ number: 1, source: 'upload', current: true }]);
    const stored = wavBytes(await download(revisions[0].audio.url));
    const reference = wavBytes(
      execFileSync('ffmpeg', ['-v', 'error', '-i', path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'), '-c:a', 'pcm_s16le', '-f', 'wav', '-'], { maxBuffer: 64 * 1024 * 1024 }),
    );
    expect(stored.layout.frames).toBe(current.format.frames);
    expect(stored.bytes.subarray(stored.layout.dataOffset).equals(reference.bytes.subarray(reference.layout.dataOffset))).toBe(true);
  });

  it('splits a line at a word or a time, keeping the original under each part, and refuses bad splits without changing anything', async () => {
    const before = await lines();
    const line = before.find((l) => l.words.length >= 6)!;
    const w = line.words;
    const nextId = Math.max(...before.map((l) => l.id)) + 1;
    const cases: Array<[unknown, number, string | null, Array<string | number> | null]> = [
      [{}, 422, 'missing', ['body']],
      [{ word_index: 0 }, 422, 'greater_than_equal', ['body', 'word_index']],
      [{ word_index: w.length }, 422, 'word_out_of_range', ['body', 'word_index']],
      [{ word_index: 1.5 }, 422, 'int_type', ['body', 'word_index']],
      [{ at: line.start }, 422, 'outside_line', ['body', 'at']],
      [{ at: line.end + 1 }, 422, 'outside_line', ['body', 'at']],
      // Before the middle of the first word: no word would be in the first part.
      [{ at: (line.start + (w[0]!.start + w[0]!.end) / 2) / 2 }, 422, 'no_words_on_one_side', ['body', 'at']],
      [{ word_index: 2, extra: true }, 422, 'extra_forbidden', ['body', 'extra']],
      ['not an object', 422, null, null],
    ];
    for (const [body, status, type, loc] of cases) {
      const res = await post(`/${dubId}/lines/${line.id}/split`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      if (type) expect((await res.json()).detail[0], JSON.stringify(body)).toMatchObject({ type, loc });
    }
    expect((await post(`/${dubId}/lines/999/split`, { word_index: 2 })).status).toBe(404);
    expect((await post(`/${dubId}/lines/x/split`, { word_index: 2 })).status).toBe(404);
    expect(await lines()).toEqual(before);

    // At a word: the cut falls in the gap between the two words' timings.
    const res = await post(`/${dubId}/lines/${line.id}/split`, { word_index: 2 });
    expect(res.status, await res.clone().text()).toBe(200);
    const { lines: parts } = (await res.json()) as { lines: Line[] };
    const cut = (w[1]!.end + w[2]!.start) / 2;
    const words = line.text.split(/\s+/);
    expect(parts.map((p) => ({ id: p.id, start: p.start, end: p.end, text: p.text, original_text: p.original_text, original_start: p.original_start, original_end: p.original_end }))).toEqual([
      { id: line.id, start: line.start, end: cut, text: words.slice(0, 2).join(' '), original_text: words.slice(0, 2).join(' '), original_start: line.start, original_end: cut },
      { id: nextId, start: cut, end: line.end, text: words.slice(2).join(' '), original_text: words.slice(2).join(' '), original_start: cut, original_end: line.end },
    ]);
    // Splitting alone does not call for a revoice: each part is still the original performance.
    for (const p of parts) {
      expect(p).toMatchObject({ state: 'original', needs_revoice: false, review_status: 'todo', speaker: line.speaker });
      expect(p.history).toMatchObject([{ op: 'split', from: [{ id: line.id, text: line.text }] }]);
    }
    expect(parts[1]!.words.map((x) => x.word)).toEqual(w.slice(2).map((x) => x.word));
    const after = await lines();
    expect(after.map((l) => l.id)).toEqual(before.flatMap((l) => (l.id === line.id ? [line.id, nextId] : [l.id])));

    // At a time: the words whose middle is before it go first.
    const second = parts[1]!;
    const at = second.words[2]!.start - 0.001;
    const byTime = await post(`/${dubId}/lines/${second.id}/split`, { at });
    expect(byTime.status, await byTime.clone().text()).toBe(200);
    const { lines: more } = (await byTime.json()) as { lines: Line[] };
    expect(more.map((p) => [p.start, p.end, p.text])).toEqual([
      [second.start, at, second.text.split(/\s+/).slice(0, 2).join(' ')],
      [at, second.end, second.text.split(/\s+/).slice(2).join(' ')],
    ]);
    expect((await (await api(`/${dubId}`)).json()).lines).toMatchObject({ total: before.length + 2, corrected: 0, pending: 0 });
  });

  it('merges a line with the next one, undoes and redoes edits exactly, and refuses merges that are not with the next line', async () => {
    const before = await lines();
    const [a, b, c] = before;
    const cases: Array<[unknown, string, Array<string | number>]> = [
      [{ with: c!.id }, 'not_next_line', ['body', 'with']],
      [{ with: 999 }, 'line_not_found', ['body', 'with']],
      [{ with: 0 }, 'greater_than_equal', ['body', 'with']],
      [{}, 'missing', ['body', 'with']],
    ];
    for (const [body, type, loc] of cases) {
      const res = await post(`/${dubId}/lines/${a!.id}/merge`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).detail[0], JSON.stringify(body)).toMatchObject({ type, loc });
    }
    const last = before.at(-1)!;
    expect((await (await post(`/${dubId}/lines/${last.id}/merge`, { with: a!.id })).json()).detail[0].type).toBe('not_next_line');
    expect(await lines()).toEqual(before);

    // A note on each, to see both on the merged line.
    expect((await post(`/${dubId}/lines/${a!.id}/notes`, { text: 'Keep the breath.' })).status).toBe(201);
    expect((await post(`/${dubId}/lines/${b!.id}/notes`, { text: 'Softer.' })).status).toBe(201);
    const withNotes = await lines();

    const res = await post(`/${dubId}/lines/${a!.id}/merge`, { with: b!.id });
    expect(res.status, await res.clone().text()).toBe(200);
    const merged = (await res.json()) as Line;
    expect(merged).toMatchObject({
      id: a!.id,
      start: a!.start,
      end: b!.end,
      text: `${a!.text} ${b!.text}`,
      original_text: `${a!.original_text} ${b!.original_text}`,
      state: 'original',
      needs_revoice: false,
    });
    expect(merged.history.at(-1)).toMatchObject({ op: 'merge', from: [{ id: a!.id, text: a!.text }, { id: b!.id, text: b!.text }] });
    expect(merged.notes.map((n) => n.text)).toEqual(['Keep the breath.', 'Softer.']);
    expect((await lines()).map((l) => l.id)).toEqual(before.filter((l) => l.id !== b!.id).map((l) => l.id));

    // Undo puts both lines back exactly as they were; redo merges again; undo once more.
    const undone = await post(`/${dubId}/edits/undo`);
    expect(undone.status).toBe(200);
    expect((await undone.json()).edit).toMatchObject({ op: 'merge', undone: true, before: [a!.id, b!.id], after: [a!.id] });
    // Undo and redo write the lines again: their time and revision (base_revision) move on.
    const strip = (ls: Line[]) => ls.map(({ ...l }) => ({ ...l, updated_at: undefined, revision: undefined }));
    expect(strip(await lines())).toEqual(strip(withNotes));
    const redone = await post(`/${dubId}/edits/redo`);
    expect(redone.status).toBe(200);
    expect((await lines()).find((l) => l.id === a!.id)!.text).toBe(merged.text);
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    expect(strip(await lines())).toEqual(strip(withNotes));

    // The two splits of the previous test undo too, back to the lines of the transcript.
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    const restored = await lines();
    expect(restored.every((l) => l.history.length === 0)).toBe(true);
    const nothing = await post(`/${dubId}/edits/undo`);
    expect(nothing.status).toBe(409);
    const { data: edits } = await (await api(`/${dubId}/edits`)).json();
    expect(edits.map((e: { op: string; undone: boolean }) => [e.op, e.undone])).toEqual([
      ['split', true],
      ['split', true],
      ['merge', true],
    ]);
    // A new edit ends redo: the undone edits are dropped.
    const first = restored[0]!;
    expect((await patch(`/${dubId}/lines/${first.id}`, { text: `${first.text} again` })).status).toBe(200);
    expect((await post(`/${dubId}/edits/redo`)).status).toBe(409);
    const { data: now } = await (await api(`/${dubId}/edits`)).json();
    expect(now).toMatchObject([{ seq: 1, op: 'correct', undone: false, before: [first.id], after: [first.id] }]);
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    expect((await lines())[0]!.text).toBe(first.text);
  });

  it('keeps a review status and notes per line: counts, "what is left", authors, and back to todo on a change', async () => {
    const all = await lines();
    const [a, b] = all;
    const approve = await patch(`/${dubId}/lines/${a!.id}`, { review_status: 'approved' });
    expect(approve.status).toBe(200);
    expect(await approve.json()).toMatchObject({ review_status: 'approved', text: a!.text });
    expect((await patch(`/${dubId}/lines/${b!.id}`, { review_status: 'needs_changes' })).status).toBe(200);
    // A review is not an edit: nothing new to undo.
    expect((await (await api(`/${dubId}/edits`)).json()).data.filter((e: { undone: boolean }) => !e.undone)).toEqual([]);

    const dub = await (await api(`/${dubId}`)).json();
    expect(dub.review).toEqual({ todo: all.length - 2, needs_changes: 1, approved: 1, left: all.length - 1 });
    expect((await lines('?review_status=approved')).map((l) => l.id)).toEqual([a!.id]);
    expect((await lines('?left=true')).map((l) => l.id)).toEqual(all.slice(1).map((l) => l.id));
    expect((await lines('?left=false')).map((l) => l.id)).toEqual([a!.id]);
    for (const [query, loc] of [
      ['?review_status=done', ['query', 'review_status']],
      ['?left=maybe', ['query', 'left']],
    ] as const) {
      const res = await api(`/${dubId}/lines${query}`);
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0].loc).toEqual(loc);
    }
    const badStatus = await patch(`/${dubId}/lines/${a!.id}`, { review_status: 'done' });
    expect(badStatus.status).toBe(422);
    expect((await badStatus.json()).detail[0]).toMatchObject({ type: 'literal_error', loc: ['body', 'review_status'] });

    // Notes: the author is the key's name ("the desktop" for the desktop studio's own key), bad notes change nothing.
    const note = await post(`/${dubId}/lines/${b!.id}/notes`, { text: 'Too fast on "printing".' }, supervisorKey);
    expect(note.status).toBe(201);
    expect(await note.json()).toMatchObject({ line_id: b!.id, author: 'ada-supervisor', text: 'Too fast on "printing".' });
    const notesBefore = (await (await api(`/${dubId}/lines/${b!.id}/notes`)).json()).data;
    for (const [body, type] of [
      [{ text: '   ' }, 'string_too_short'],
      [{ text: 'x'.repeat(2001) }, 'string_too_long'],
      [{}, 'missing'],
      [{ text: 'ok', author: 'someone else' }, 'extra_forbidden'],
    ] as const) {
      const res = await post(`/${dubId}/lines/${b!.id}/notes`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).detail[0].type).toBe(type);
    }
    expect((await post(`/${dubId}/lines/999/notes`, { text: 'x' })).status).toBe(404);
    expect((await (await api(`/${dubId}/lines/${b!.id}/notes`)).json()).data).toEqual(notesBefore);
    expect(notesBefore.map((n: { author: string }) => n.author)).toEqual(['the desktop', 'ada-supervisor']);

    // A change of text, voice or timing puts the line back to todo; undo brings the approval back with it.
    const changed = await (await patch(`/${dubId}/lines/${a!.id}`, { voice: 'flite/slt' })).json();
    expect(changed.review_status).toBe('todo');
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    expect((await lines()).find((l) => l.id === a!.id)).toMatchObject({ review_status: 'approved', voice: null });
    const retimed = await (await patch(`/${dubId}/lines/${a!.id}`, { end: a!.end - 0.05 })).json();
    expect(retimed.review_status).toBe('todo');
    // Sent together, the review status given wins.
    const both = await (await patch(`/${dubId}/lines/${a!.id}`, { end: a!.end, review_status: 'approved' })).json();
    expect(both).toMatchObject({ end: a!.end, review_status: 'approved' });
  });

  it('asks for a revoice of both parts when a voiced line is split, and undo brings the voiced line back', { timeout: 600_000 }, async () => {
    const line = (await lines()).find((l) => l.text.split(' ').length >= 4)!;
    const corrected = await patch(`/${dubId}/lines/${line.id}`, { text: 'The printing press changed everything we read.', voice: 'flite/rms' });
    expect(corrected.status).toBe(200);
    expect((await revoiceAll()).status).toBe('complete');
    const voiced = (await lines()).find((l) => l.id === line.id)!;
    expect(voiced).toMatchObject({ state: 'voiced', needs_revoice: false });

    const split = await post(`/${dubId}/lines/${line.id}/split`, { word_index: 2, at: (voiced.start + voiced.end) / 2 });
    expect(split.status, await split.clone().text()).toBe(200);
    const { lines: parts } = (await split.json()) as { lines: Line[] };
    // The second part's text is its share of the correction, but the audio under it is the first part's voice.
    expect(parts.map((p) => [p.state, p.needs_revoice])).toEqual([
      ['corrected', true],
      ['corrected', true],
    ]);
    expect((await (await api(`/${dubId}`)).json()).lines.pending).toBe(2);
    expect((await post(`/${dubId}/edits/undo`)).status).toBe(200);
    expect((await lines()).find((l) => l.id === line.id)).toMatchObject({ state: 'voiced', needs_revoice: false, text: voiced.text });
    expect((await (await api(`/${dubId}`)).json()).lines.pending).toBe(0);
  });

  it('exports the cue sheet, EDL and FCPXML on the recording\'s timebase and the stem of the revoiced lines', { timeout: 60_000 }, async () => {
    const media = await sessionApi('/media', { method: 'PATCH', body: JSON.stringify({ frame_rate: '29.97', drop_frame: true, start_timecode: '00:59:59;00', tape: 'A001' }) });
    expect(media.status, await media.clone().text()).toBe(200);
    const clock = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:59:59;00' };
    const all = await lines();
    const voiced = all.filter((l) => l.state === 'voiced');
    expect(voiced).toHaveLength(1);

    // The character is the project's name for the speaker where it has one, else the label.
    const map = (await (await sessionApi('')).json()).speaker_map ?? {};
    const character: string = map.S1?.name ?? 'S1';
    const csv = await api(`/${dubId}/export?format=cues_csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers.get('content-disposition')).toMatch(/attachment; filename="Take 1 dub\.cues\.csv"/);
    const rows = (await csv.text()).trimEnd().split('\r\n');
    expect(rows[0]).toBe('cue,line_id,character,speaker,in_timecode,out_timecode,in_seconds,out_seconds,original_text,corrected_text,state,review_status,voice,notes,timebase');
    expect(rows).toHaveLength(all.length + 1);
    const row = rows[1 + all.indexOf(voiced[0]!)]!;
    const v = voiced[0]!;
    expect(row.split(',').slice(0, 8)).toEqual([
      String(all.indexOf(v) + 1),
      String(v.id),
      character,
      'S1',
      secondsToTimecode(v.start, clock),
      secondsToTimecode(v.end, clock),
      v.start.toFixed(3),
      v.end.toFixed(3),
    ]);
    expect(secondsToTimecode(v.start, clock)).toMatch(/^(00:59:5\d|01:00:\d\d);\d\d$/);
    expect(row).toContain(`,${v.original_text.includes(',') ? `"${v.original_text}"` : v.original_text},`);
    expect(row).toContain(',The printing press changed everything we read.,voiced,');
    expect(row).toContain('29.97 fps drop frame, starting at 00:59:59;00');
    const noted = rows.find((r) => r.includes('the desktop: Keep the breath.'));
    expect(noted).toBeDefined();

    const edl = await (await api(`/${dubId}/export?format=edl`)).text();
    expect(edl).toContain('FCM: DROP FRAME');
    expect(edl).toContain('* FROM CLIP NAME: Take 1 dub-r2.wav');
    const locators = edl.split('\n').filter((l) => l.startsWith('* LOC:'));
    expect(locators).toHaveLength(1);
    expect(locators[0]).toContain(`* LOC: ${secondsToTimecode(v.start, clock)} BLUE    ${character}: The printing press changed everything we read. (was: `);
    const fcpxml = await api(`/${dubId}/export?format=fcpxml`);
    expect(fcpxml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await fcpxml.text();
    expect(xml.match(/<marker /g)).toHaveLength(1);
    expect(xml).toContain(`value="${character}: The printing press changed everything we read. (was: `);
    expect(xml).toContain('tcFormat="DF"');

    // The stem: the current revision's header and length, its samples in the revoiced region, silence elsewhere.
    const stemRes = await api(`/${dubId}/export?format=stem_wav`);
    expect(stemRes.status).toBe(200);
    expect(stemRes.headers.get('content-type')).toBe('audio/wav');
    expect(stemRes.headers.get('content-disposition')).toMatch(/filename="Take 1 dub\.r2\.stem\.wav"/);
    const stem = wavBytes(Buffer.from(await stemRes.arrayBuffer()));
    const { data: revisions } = await (await api(`/${dubId}/revisions`)).json();
    const current = wavBytes(await download(revisions.find((r: { current: boolean }) => r.current).audio.url));
    expect(stem.bytes.length).toBe(current.bytes.length);
    expect(stem.bytes.subarray(0, stem.layout.dataOffset).equals(current.bytes.subarray(0, current.layout.dataOffset))).toBe(true);
    const region = (v as unknown as { render: { region: { start_frame: number; end_frame: number } } }).render.region;
    let inside = 0;
    let silentOutside = 0;
    let soundInside = 0;
    for (let i = 0; i < stem.layout.frames; i++) {
      const frame = stem.frame(i);
      if (i >= region.start_frame && i < region.end_frame) {
        if (frame.equals(current.frame(i))) inside++;
        if (frame.some((b) => b !== 0)) soundInside++;
      } else if (frame.every((b) => b === 0)) silentOutside++;
    }
    expect(inside).toBe(region.end_frame - region.start_frame);
    expect(silentOutside).toBe(stem.layout.frames - (region.end_frame - region.start_frame));
    // Not silence: the new voice (speech has its pauses, so not every frame).
    expect(soundInside).toBeGreaterThan((region.end_frame - region.start_frame) / 4);

    for (const [query, type] of [
      ['', 'missing'],
      ['?format=wav', 'literal_error'],
    ] as const) {
      const res = await api(`/${dubId}/export${query}`);
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({ type, loc: ['query', 'format'] });
    }
  });

  it('documents the workflow routes in a valid OpenAPI document', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    const result = await validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const base = '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}';
    for (const route of ['/lines/{line_id}/split', '/lines/{line_id}/merge', '/lines/{line_id}/notes', '/edits', '/edits/undo', '/edits/redo', '/export']) {
      expect(doc.paths[`${base}${route}`], route).toBeDefined();
    }
    expect(Object.keys(doc.paths['/v1/speech/transcriptions/{session_id}/dubs'].post.requestBody.content)).toEqual(['application/json', 'multipart/form-data']);
  });

  it('revoices a line at its own speed (pitch kept, one WSOLA stretch of 1 / speed) and refuses speeds outside 0.8–1.2', { timeout: 600_000 }, async () => {
    const voiced = (await lines()).find((l) => l.state === 'voiced')!;
    for (const [speed, type] of [
      [1.5, 'less_than_equal'],
      [0.79, 'greater_than_equal'],
      ['fast', 'float_type'],
    ] as const) {
      const res = await patch(`/${dubId}/lines/${voiced.id}`, { speed });
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({ type, loc: ['body', 'speed'] });
    }
    expect((await lines()).find((l) => l.id === voiced.id)).toMatchObject({ state: 'voiced', speed: null });
    const faster = await (await patch(`/${dubId}/lines/${voiced.id}`, { speed: 1.2 })).json();
    expect(faster).toMatchObject({ speed: 1.2, state: 'corrected', needs_revoice: true, review_status: 'todo' });
    const revoice = await revoiceAll();
    expect(revoice.status).toBe('complete');
    const render = revoice.lines[0]!.render!;
    expect(render).toMatchObject({ speed: 1.2, stretch: 0.833333 });
    expect(render.flags).toContain('stretched');
    // The new speech lasts the reading's length over 1.2 (less only where it is cut at the slot end).
    const spoken = render.speech.end - render.speech.start;
    if (!render.flags.includes('does_not_fit')) expect(Math.abs(spoken - render.synthesized_duration / 1.2)).toBeLessThan(0.03);
    expect((await lines()).find((l) => l.id === voiced.id)).toMatchObject({ state: 'voiced', speed: 1.2 });
    // Back to the voice's own pace: a revoice is needed again.
    expect(await (await patch(`/${dubId}/lines/${voiced.id}`, { speed: null })).json()).toMatchObject({ speed: null, state: 'corrected' });
  });
});
