import { describe, expect, it } from 'vitest';
import { recordingDubName } from './dub-name';

describe('recordingDubName', () => {
  it("names a dub after the recording without its extension, never the recording's file name itself", () => {
    expect(recordingDubName('readings-7min.flac', [])).toBe('readings-7min dub');
    expect(recordingDubName('take 2.final.wav', [])).toBe('take 2.final dub');
    expect(recordingDubName('dir/sub\\meeting.mp3', [])).toBe('meeting dub');
    expect(recordingDubName('.flac', [])).toBe('.flac dub');
    expect(recordingDubName('', [])).toBe('recording dub');
  });

  it('numbers a second and later dub of the same recording', () => {
    expect(recordingDubName('a.flac', ['a.flac', 'a dub'])).toBe('a dub 2');
    expect(recordingDubName('a.flac', ['a dub', 'a dub 2', 'a dub 4'])).toBe('a dub 3');
    expect(recordingDubName('a.flac', ['Ep 104 dub'])).toBe('a dub');
  });
});
