import { describe, expect, it } from 'vitest';
import { projectRows, recordingRows } from './replace-rows';

const match = (segment_id: number) => ({ segment_id, word_start: 0, word_end: 1, before: 'show on', after: 'Siobhan' });

describe('replace preview rows', () => {
  it('numbers lines from 1 and names the recording across a project', () => {
    expect(recordingRows([match(0)])).toEqual([{ where: 'line 1', before: 'show on', after: 'Siobhan' }]);
    const rows = projectRows({
      preview: true,
      count: 2,
      recordings: [
        { session_id: '00000000-0000-4000-8000-000000000001', file_name: 'a.wav', count: 1, matches: [match(3)], revision: null },
        { session_id: '00000000-0000-4000-8000-000000000002', file_name: 'b.wav', count: 0, matches: [], revision: null },
        { session_id: '00000000-0000-4000-8000-000000000003', file_name: 'c.wav', count: 1, matches: [match(0)], revision: null },
      ],
    });
    expect(rows.map((r) => r.where)).toEqual(['a.wav, line 4', 'c.wav, line 1']);
  });
});
