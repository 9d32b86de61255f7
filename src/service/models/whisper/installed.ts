import fs from 'node:fs';
import path from 'node:path';
import { WHISPER_CATALOGUE, WHISPER_LANGUAGES, whisperEngineId, type WhisperCatalogueEntry } from './catalogue';

/** A ggml file in the Whisper folder: a catalogue model, or one the user put there (a fine-tune, a quantization). */
export interface WhisperModelFile {
  /** `base.en` for catalogue models; the file name without `ggml-` and `.bin` otherwise. */
  name: string;
  id: string;
  file: string;
  multilingual: boolean;
  rank: number;
  catalogue: WhisperCatalogueEntry | null;
}

/** Other files ranked above PocketSphinx (10) but below every catalogue model: their quality is unknown. */
const CUSTOM_RANK = 15;

/** Files the manager writes while downloading; never models. */
export function isPartialDownload(file: string): boolean {
  return file.endsWith('.part') || file.startsWith('.');
}

/** The catalogue models present in `dir`, then any other `*.bin` there. A missing folder holds none. */
export function whisperModelFiles(dir: string, catalogue: readonly WhisperCatalogueEntry[] = WHISPER_CATALOGUE): WhisperModelFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const present = new Set(names);
  const out: WhisperModelFile[] = [];
  for (const entry of catalogue) {
    if (!present.has(entry.file)) continue;
    out.push({ name: entry.name, id: whisperEngineId(entry.name), file: path.join(dir, entry.file), multilingual: entry.multilingual, rank: entry.rank, catalogue: entry });
  }
  const catalogued = new Set(catalogue.map((e) => e.file));
  for (const file of names.sort()) {
    if (!file.endsWith('.bin') || catalogued.has(file) || isPartialDownload(file)) continue;
    const name = file.replace(/^ggml-/, '').replace(/\.bin$/, '');
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) continue;
    out.push({ name, id: whisperEngineId(name), file: path.join(dir, file), multilingual: !/(^|[.-])en([.-]|$)/.test(name), rank: CUSTOM_RANK, catalogue: null });
  }
  return out;
}

export function languagesOf(multilingual: boolean): string[] {
  return multilingual ? [...WHISPER_LANGUAGES] : ['en'];
}
