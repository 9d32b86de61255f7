import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { openStores } from '../storage/stores';
import type { RevisionEdit } from '../storage/revision-store';
import type { Transcript, TranscriptSegment } from '../speech/types';
import { findMatches } from './text-corrections';
import { TranscriptEditor, type TranscriptEditDeps } from './transcript-edits';

function line(id: number, start: number, text: string): TranscriptSegment {
  const words = text.split(' ').map((word, i) => ({ word, start: start + i * 0.5, end: start + i * 0.5 + 0.4, confidence: 0.6, speaker: 'S1' }));
  return { id, speaker: 'S1', start, end: words.at(-1)!.end, text, words, avgLogprob: -1 };
}
const transcript = (...texts: string[]): Transcript => ({ language: 'en', duration: 20, engine: 'test', speakers: ['S1'], segments: texts.map((t, i) => line(i, i * 5, t)), text: '' });
const replaceEdit = (find: string, replace: string): RevisionEdit => ({ op: 'replace', find, replace, match_case: false, whole_words: true, matches: 2, lines: [], touched: [] });

/** A recording whose transcript had revisions appended, and the editor over its database (only its revisions are read). */
async function recording(...edits: Array<[Transcript, RevisionEdit]>) {
  const database = openStores(new SqliteSql(openDatabase(':memory:')));
  const project = await database.projects.create('p', 'P');
  const id = crypto.randomUUID();
  await database.sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 20, format: {} as never, language: 'en' });
  await database.sessions.complete(id, transcript('The cat sat on the mat.', 'Where is the dog?'));
  for (const [next, edit] of edits) await database.revisions.append(id, next, edit, null);
  return { id, editor: new TranscriptEditor({ database } as unknown as TranscriptEditDeps), database };
}

const query = { find: 'the', replace: 'the very', wholeWords: true };

describe('a replacement already made (a job run again after its worker died)', () => {
  it('answers from the revision made on the base: the matches on the base transcript, that revision', async () => {
    const after = transcript('The very cat sat on the very mat.', 'Where is the very dog?');
    const { id, editor, database } = await recording([after, replaceEdit('the', 'the very')]);
    const made = await editor.replacedAlready(id, query, 0);
    const base = (await database.revisions.get(id, 0))!;
    expect(made).toEqual({ count: 3, matches: findMatches(base, query), revision: (await database.revisions.list(id, null)).find((r) => r.revision === 1) });
    expect(made!.matches.map((m) => [m.before, m.after])).toEqual([['The', 'the very'], ['the', 'the very'], ['the', 'the very']]);
    expect(made!.revision).toMatchObject({ revision: 1, edit: { op: 'replace', find: 'the', replace: 'the very' } });
  });

  it('is null when nothing was made on the base, or what was made is another edit', async () => {
    const none = await recording();
    expect(await none.editor.replacedAlready(none.id, query, 0)).toBeNull();
    const other = await recording([transcript('A cat sat on a mat.', 'Where is a dog?'), replaceEdit('the', 'a')]);
    expect(await other.editor.replacedAlready(other.id, query, 0)).toBeNull();
    // The same replacement, made on another revision than this job's base.
    const later = await recording(
      [transcript('The cat sat.', 'Where is the dog?'), { op: 'edit_text', segment_id: 0, word_start: null, word_end: null, lines: [], touched: [] }],
      [transcript('The very cat sat.', 'Where is the very dog?'), replaceEdit('the', 'the very')],
    );
    expect(await later.editor.replacedAlready(later.id, query, 0)).toBeNull();
    expect(await later.editor.replacedAlready(later.id, query, 1)).toMatchObject({ count: 2, revision: { revision: 2 } });
    expect(await later.editor.replacedAlready(later.id, { ...query, matchCase: true }, 1)).toBeNull();
  });
});
