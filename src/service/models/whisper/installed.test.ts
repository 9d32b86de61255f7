import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { whisperModelFiles } from './installed';
import { whisperEngines } from './engines';
import { WHISPER_CATALOGUE } from './catalogue';

describe('Whisper model files', () => {
  it('finds catalogue models and other ggml files, ignoring downloads in progress', () => {
    const dir = tempDir('takeline-whisper-dir-');
    for (const f of ['ggml-base.en.bin', 'ggml-small.bin.part', 'ggml-my-finetune.en.bin', 'ggml-medical-q8.bin', 'notes.txt', '.ggml-tiny.bin.tmp']) {
      fs.writeFileSync(path.join(dir, f), 'x');
    }
    const files = whisperModelFiles(dir);
    expect(files.map((f) => [f.id, f.multilingual, f.rank])).toEqual([
      ['whisper-base.en', false, 31],
      ['whisper-medical-q8', true, 15],
      ['whisper-my-finetune.en', false, 15],
    ]);
  });

  it('a missing folder holds no models', () => {
    expect(whisperModelFiles('/nonexistent/whisper')).toEqual([]);
  });

  it('every catalogue model is a known engine; those not downloaded name how to get them', () => {
    const dir = tempDir('takeline-whisper-dir-');
    fs.writeFileSync(path.join(dir, 'ggml-tiny.en.bin'), 'x');
    const engines = whisperEngines(dir);
    expect(engines).toHaveLength(WHISPER_CATALOGUE.length);
    const tiny = engines.find((e) => e.model.id === 'whisper-tiny.en')!;
    expect(tiny.missing()).toBeNull();
    expect(tiny.languages).toEqual(['en']);
    const large = engines.find((e) => e.model.id === 'whisper-large-v3')!;
    expect(large.missing()).toMatch(/ggml-large-v3\.bin is not in/);
    expect(large.installHint).toMatch(/POST \/v1\/speech\/models\/whisper\/large-v3\/download/);
    expect(large.languages).toContain('de');
  });

  it('catalogue checksums are SHA-1 hex and names are unique', () => {
    expect(new Set(WHISPER_CATALOGUE.map((e) => e.name)).size).toBe(WHISPER_CATALOGUE.length);
    for (const e of WHISPER_CATALOGUE) expect(e.sha1).toMatch(/^[0-9a-f]{40}$/);
  });
});
