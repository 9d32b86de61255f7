import { describe, expect, it } from 'vitest';
import { renderDubCues, renderDubEdl, type DubCueLine, type DubExportInput } from './dub-cues';

const cue = (id: number, start: number, end: number, fields: Partial<DubCueLine> = {}): DubCueLine => ({
  id,
  speaker: 'S1',
  start,
  end,
  text: 'We leave at dawn.',
  original_text: 'We leave at dawn.',
  state: 'original',
  review_status: 'todo',
  effective_voice: 'flite/rms',
  notes: [],
  revoiced: false,
  ...fields,
});

const input = (lines: DubCueLine[], media: DubExportInput['media'] = null): DubExportInput => ({
  fileName: 'ep-r2.wav',
  duration: 60,
  channels: 2,
  sampleRate: 48000,
  lines,
  media,
  speakerNames: { S2: 'Ada' },
});

describe('renderDubCues', () => {
  it('numbers cues in time order on the timebase, quoting and guarding free text', () => {
    const file = renderDubCues(
      input(
        [
          cue(7, 12.5, 14, { speaker: 'S2', text: '=SUM(A1), said she', state: 'corrected', review_status: 'needs_changes', notes: [{ author: 'ada', created_at: '', text: 'Too "hot"' }, { author: 'studio', created_at: '', text: 'ok' }] }),
          cue(1, 1, 2.04),
        ],
        { frame_rate: '25', drop_frame: false, start_timecode: '10:00:00:00', tape: 'A001' },
      ),
    );
    const rows = file.body.split('\r\n');
    expect(rows[1]).toBe('1,1,S1,S1,10:00:01:00,10:00:02:01,1.000,2.040,We leave at dawn.,We leave at dawn.,original,todo,flite/rms,,"25 fps non-drop frame, starting at 10:00:00:00"');
    expect(rows[2]).toBe(
      `2,7,Ada,S2,10:00:12:12,10:00:14:00,12.500,14.000,We leave at dawn.,"'=SUM(A1), said she",corrected,needs_changes,flite/rms,"ada: Too ""hot"" | studio: ok","25 fps non-drop frame, starting at 10:00:00:00"`,
    );
    expect(rows.at(-1)).toBe('');
    expect(file).toMatchObject({ contentType: 'text/csv; charset=utf-8; header=present', extension: 'cues.csv' });
  });

  it('says when the timebase is assumed', () => {
    expect(renderDubCues(input([cue(1, 0, 1)])).body).toContain('25 fps non-drop frame from 00:00:00:00 (assumed: no timebase set)');
  });
});

describe('renderDubEdl', () => {
  it('marks only the revoiced lines', () => {
    const body = renderDubEdl(input([cue(1, 1, 2), cue(2, 3, 4, { revoiced: true, text: 'New words.' })])).body;
    expect(body.split('\n').filter((l) => l.startsWith('* LOC:'))).toEqual(['* LOC: 00:00:03:00 BLUE    S1: New words. (was: We leave at dawn.)']);
    expect(body).toContain('* FROM CLIP NAME: ep-r2.wav');
  });
});
