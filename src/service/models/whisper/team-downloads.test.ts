import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredWhisperDownload } from '../../storage/whisper-model-store';
import { DOWNLOAD_STALE_MS, TeamWhisperDownloads, downloadDocument, isAbandoned } from './team-downloads';
import { teamWhisperStore } from './team-store.testutil';

const at = (ms: number) => new Date(Date.parse('2026-11-29T08:00:00.000Z') + ms).toISOString();
const row = (over: Partial<StoredWhisperDownload> = {}): StoredWhisperDownload => ({
  name: 'tiny.en',
  attempt: 'a',
  node: 'api-1:42',
  status: 'downloading',
  receivedBytes: 1000,
  totalBytes: 5000,
  resumedFrom: 0,
  startedAt: at(0),
  updatedAt: at(0),
  finishedAt: null,
  discard: false,
  error: null,
  ...over,
});
const NOW = Date.parse(at(0));

describe('the staleness rule', () => {
  it('a running download whose node wrote nothing for the stale time is abandoned; an ended one never is', () => {
    expect(isAbandoned(row(), NOW + DOWNLOAD_STALE_MS)).toBe(false);
    expect(isAbandoned(row(), NOW + DOWNLOAD_STALE_MS + 1)).toBe(true);
    expect(isAbandoned(row(), NOW + 2_000, 1_000)).toBe(true);
    // Asked to stop, its node gone before it could: abandoned too.
    expect(isAbandoned(row({ status: 'cancelled' }), NOW + DOWNLOAD_STALE_MS + 1)).toBe(true);
    expect(isAbandoned(row({ status: 'failed', finishedAt: at(0) }), NOW + 10 * DOWNLOAD_STALE_MS)).toBe(false);
  });

  it('the document: as recorded while the node reports; failed with `interrupted` once it stopped (never downloading forever)', () => {
    const live = { status: 'downloading', received_bytes: 1000, total_bytes: 5000, resumed_from: 0, started_at: at(0), error: null };
    expect(downloadDocument(row(), NOW + 1_000)).toEqual(live);
    expect(downloadDocument(row(), NOW + DOWNLOAD_STALE_MS + 1)).toEqual({
      ...live,
      status: 'failed',
      error: { code: 'interrupted', message: 'The node downloading it stopped reporting progress (nothing for 15 s); download it again.' },
    });
    // A cancelled one reads as cancelled, however old.
    expect(downloadDocument(row({ status: 'cancelled' }), NOW + 10 * DOWNLOAD_STALE_MS).status).toBe('cancelled');
    const failed = row({ status: 'failed', finishedAt: at(0), error: { code: 'network_error', message: 'cut' } });
    expect(downloadDocument(failed, NOW + 10 * DOWNLOAD_STALE_MS)).toEqual({ ...live, status: 'failed', error: { code: 'network_error', message: 'cut' } });
  });
});

/** Two nodes' views of one team database, reporting every 50 ms, stale after 400 ms. */
function nodes() {
  const { store } = teamWhisperStore();
  const node = () => new TeamWhisperDownloads({ store, reportMs: 50, staleMs: 400 });
  return { store, a: node(), b: node() };
}

describe('TeamWhisperDownloads', () => {
  it('one node downloads; the other joins it, reads its progress, and cancels it on the running node', async () => {
    const { store, a, b } = nodes();
    const progress = { receivedBytes: 0, totalBytes: 9000 as number | null, resumedFrom: 0 };
    const download = (await a.begin('tiny.en', { resumedFrom: 0, startedAt: at(0) }, () => progress))!;
    expect(download).not.toBeNull();
    expect(await b.begin('tiny.en', { resumedFrom: 0, startedAt: at(5) }, () => progress)).toBeNull();
    expect(b.document('tiny.en')).toMatchObject({ status: 'downloading', started_at: at(0) });

    progress.receivedBytes = 4096;
    await new Promise((r) => setTimeout(r, 200));
    await b.refresh();
    expect(b.document('tiny.en')).toMatchObject({ status: 'downloading', received_bytes: 4096, total_bytes: 9000 });

    // B's cancel reaches A at its next report; A stops and records it; B's cancel answers once it has.
    download.signal.addEventListener('abort', () => void download.end({ status: 'cancelled', receivedBytes: 4096, error: { code: 'cancelled', message: 'The download was cancelled.' } }));
    const asked = Date.now();
    await b.cancel('tiny.en', false);
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(download.signal.aborted).toBe(true);
    expect(download.discard).toBe(false);
    expect(b.document('tiny.en')).toMatchObject({ status: 'cancelled', received_bytes: 4096, error: { code: 'cancelled' } });
    expect((await store.download('tiny.en'))!.finishedAt).not.toBeNull();
  });

  it('a discarding cancel tells the running node to delete its bytes, and forgets the download', async () => {
    const { store, a, b } = nodes();
    const download = (await a.begin('tiny.en', { resumedFrom: 0, startedAt: at(0) }, () => ({ receivedBytes: 1, totalBytes: 2, resumedFrom: 0 })))!;
    download.signal.addEventListener('abort', () => void download.end({ status: 'cancelled', receivedBytes: 0, error: null }));
    await b.cancel('tiny.en', true);
    expect(download.discard).toBe(true);
    expect(await store.download('tiny.en')).toBeNull();
    expect(b.document('tiny.en')).toBeNull();
  });

  it("a dead node's download reads as interrupted once stale, a cancel of it does not wait, and another node takes over", async () => {
    const { store, b } = nodes();
    // A node claimed the download, then died: nothing reports for it any more.
    const dead = () => row({ attempt: crypto.randomUUID(), receivedBytes: 1, updatedAt: new Date().toISOString() });
    expect(await store.claimDownload(dead(), at(0))).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    await b.refresh();
    expect(b.document('tiny.en')).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    const asked = Date.now();
    await b.cancel('tiny.en', true);
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(await store.download('tiny.en')).toBeNull();

    expect(await store.claimDownload(dead(), at(0))).toBe(true);
    expect(await b.begin('tiny.en', { resumedFrom: 0, startedAt: at(1) }, () => ({ receivedBytes: 0, totalBytes: null, resumedFrom: 0 }))).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    const taken = await b.begin('tiny.en', { resumedFrom: 0, startedAt: at(1) }, () => ({ receivedBytes: 0, totalBytes: null, resumedFrom: 0 }));
    expect(taken).not.toBeNull();
    expect((await store.download('tiny.en'))!.attempt).toBe(taken!.attempt);
    await taken!.end({ status: 'failed', receivedBytes: 0, error: null });
  });

  it('a node whose download another took over stops its own at its next report', async () => {
    const { store, a } = nodes();
    const download = (await a.begin('tiny.en', { resumedFrom: 0, startedAt: at(0) }, () => ({ receivedBytes: 1, totalBytes: 2, resumedFrom: 0 })))!;
    const other = { ...(await store.download('tiny.en'))!, attempt: 'other', updatedAt: new Date().toISOString() };
    expect(await store.claimDownload(other, new Date(Date.now() + 1000).toISOString())).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(download.signal.aborted).toBe(true);
    expect(download.discard).toBe(false);
    await download.end({ status: 'cancelled', receivedBytes: 1, error: null });
    expect((await store.download('tiny.en'))!.attempt).toBe('other');
  });
});
