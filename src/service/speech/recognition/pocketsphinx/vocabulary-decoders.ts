import { copyFileSync, appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DecoderPool } from './decoder-pool';
import type { PocketSphinxModel } from './model';
import { espeakPronunciations } from './pronounce';
import {
  classDefinition,
  dictionaryLines,
  dictionaryWords,
  languageModelControl,
  type VocabularyEntry,
} from './vocabulary';

export interface VocabularyDecodersOptions {
  model: PocketSphinxModel;
  args: Record<string, string>;
  workers: number;
  /** The espeak-ng program. */
  espeak?: string;
  /** Pools for this many distinct vocabularies stay warm; the least recently used is closed. Default 2. */
  keep?: number;
  /** A pool unused this long is closed (its processes hold ~120 MB each). Default 120 s. */
  idleSeconds?: number;
  /** Folder for the pools' dictionaries and decoders' folders (default the OS temp folder). */
  tempDir?: string;
  /** Decoders take a per-utterance MLLR transform (BatchProcessOptions.mllr). */
  mllr?: boolean;
}

interface Entry {
  key: string;
  ready: Promise<{ pool: DecoderPool; dir: string; entries: VocabularyEntry[] } | null>;
  lastUsed: number;
}

/**
 * Decoder pools for requests that bring their own words (vocabulary.ts): one per distinct set of words the
 * dictionary lacks, started on first use (0.3 s to load), kept warm for the next request with the same
 * words (a project's vocabulary), and closed when idle. Requests whose words are all known, or when
 * espeak-ng is missing, use the shared pool.
 */
export class VocabularyDecoders {
  private known: Promise<Set<string>> | null = null;
  private readonly pools = new Map<string, Entry>();
  /** Vocabularies whose decoder failed: not tried again by this recognizer. */
  private readonly failed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: VocabularyDecodersOptions) {}

  /** Words among `words` that the dictionary lacks. */
  async unknownWords(words: readonly string[]): Promise<string[]> {
    this.known ??= readFile(this.options.model.dict, 'utf8').then(dictionaryWords);
    const known = await this.known;
    return words.filter((w) => !known.has(w));
  }

  /** The pool that knows `words` (null: nothing to add, use the shared pool), with the entries it added. */
  async poolFor(words: readonly string[]): Promise<{ pool: DecoderPool; entries: VocabularyEntry[] } | null> {
    const unknown = (await this.unknownWords(words)).sort();
    if (unknown.length === 0) return null;
    const key = unknown.join(' ');
    if (this.failed.has(key)) return null;
    let entry = this.pools.get(key);
    if (!entry) {
      // Not tied to the first caller's signal: a later request may share the pool.
      entry = { key, ready: this.start(unknown), lastUsed: Date.now() };
      this.pools.set(key, entry);
      entry.ready.catch(() => this.pools.delete(key));
      this.evict();
    }
    entry.lastUsed = Date.now();
    this.schedule();
    return entry.ready;
  }

  private async start(words: string[]) {
    const { model } = this.options;
    const phones = await espeakPronunciations(words, this.options.espeak);
    const entries = [...(phones ?? [])].map(([word, p]) => ({ word, phones: p }));
    if (entries.length === 0) return null;
    const dir = mkdtempSync(path.join(this.options.tempDir ?? os.tmpdir(), 'takeline-vocabulary-'));
    const dict = path.join(dir, 'dictionary.dict');
    copyFileSync(model.dict, dict);
    appendFileSync(dict, dictionaryLines(entries));
    const classes = path.join(dir, 'vocabulary.classdef');
    writeFileSync(classes, classDefinition(entries));
    const control = path.join(dir, 'lm.ctl');
    writeFileSync(control, languageModelControl(classes, model.lm));
    const pool = new DecoderPool(
      { model: { ...model, dict }, args: { ...this.options.args, '-lmctl': control, '-lmname': 'base' }, tempDir: this.options.tempDir, mllr: this.options.mllr },
      this.options.workers,
    );
    return { pool, dir, entries };
  }

  private evict(): void {
    const keep = this.options.keep ?? 2;
    const byAge = [...this.pools.values()].sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of byAge.slice(0, Math.max(0, byAge.length - keep))) void this.drop(entry);
  }

  private schedule(): void {
    if (this.timer) return;
    const idle = (this.options.idleSeconds ?? 120) * 1000;
    this.timer = setTimeout(() => {
      this.timer = null;
      for (const entry of this.pools.values()) if (Date.now() - entry.lastUsed >= idle) void this.drop(entry);
      if (this.pools.size > 0) this.schedule();
    }, idle);
    this.timer.unref();
  }

  /** Stops using a vocabulary whose decoder failed (its requests then use the shared pool). */
  async discard(pool: DecoderPool): Promise<void> {
    for (const entry of this.pools.values()) {
      if ((await entry.ready.catch(() => null))?.pool !== pool) continue;
      this.failed.add(entry.key);
      await this.drop(entry);
    }
  }

  private async drop(entry: Entry): Promise<void> {
    this.pools.delete(entry.key);
    const ready = await entry.ready.catch(() => null);
    if (!ready) return;
    // Jobs already running finish first (close waits for them).
    await ready.pool.close();
    rmSync(ready.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.all([...this.pools.values()].map((e) => this.drop(e)));
  }
}
