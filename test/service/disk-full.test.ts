import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { integrityCheck, sha256, temporaryFiles } from '../helpers/crash';

// A real full disk: a small tmpfs as the data folder. Mounting needs root (CI containers and this
// machine run tests as root); elsewhere the test is skipped and says why.
const isRoot = process.getuid?.() === 0;
const canMount = isRoot && spawnSync('mount', ['--version']).status === 0;

describe.skipIf(!canMount)('a full disk (tmpfs of 48 MiB as the data folder)', () => {
  let mountPoint = '';
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let keptId = '';
  const audio = fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'));
  const filler = () => path.join(mountPoint, 'filler.bin');

  beforeAll(async () => {
    mountPoint = tempDir('takeline-small-disk-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint]);
    svc = await startServiceProcess({ dataDir: path.join(mountPoint, 'data') });
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'full' }, { name: 'file', file: audio, filename: 'kept.flac' }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    keptId = res.json().id;
    for (let i = 0; i < 600; i++) {
      const s = await (await fetch(`${svc.url}/v1/speech/transcriptions/${keptId}`, { headers: auth })).json();
      if (s.status === 'complete') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // Fill what is left, to the last byte.
    spawnSync('sh', ['-c', `dd if=/dev/zero of=${filler()} bs=1M 2>/dev/null; dd if=/dev/zero of=${filler()}.2 bs=1k 2>/dev/null; true`]);
  }, 180_000);
  afterAll(async () => {
    await svc?.stop();
    // The stopped service's children may still be closing files there for a moment; a mount left behind
    // would make the run's temp folder impossible to remove (EBUSY), so wait, then detach it lazily.
    for (let i = 0; i < 50 && spawnSync('umount', [mountPoint]).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    if (fs.readFileSync('/proc/mounts', 'utf8').includes(` ${mountPoint} `)) spawnSync('umount', ['-l', mountPoint]);
  });

  it('refuses an upload with 507 saying so, keeps no part of it, and keeps serving', async () => {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'full' }, { name: 'file', file: Buffer.concat([audio, audio, audio]), filename: 'big.flac' }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(507);
    expect(res.json()).toEqual({ detail: expect.stringMatching(/disk .* is full: nothing was stored/) });
    expect(temporaryFiles(svc.dataDir)).toEqual([]);
    const page = await (await fetch(`${svc.url}/v1/speech/transcriptions?project=full`, { headers: auth })).json();
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([keptId]);
    expect(sha256(path.join(svc.dataDir, 'recordings', keptId, 'original.flac'))).toBe(sha256(audio));
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });

  it('refuses writing a transcript revision with 507 when the database cannot grow, and the transcript stays as it was', async () => {
    const before = await (await fetch(`${svc.url}/v1/speech/transcriptions/${keptId}`, { headers: auth })).json();
    const segment = before.transcript.segments[0];
    // Each edit writes a revision; some may fit in pages SQLite already has, so edit until it runs out.
    let status = 200;
    for (let i = 0; i < 400 && status < 500; i++) {
      const res = await rawRequest(`${svc.url}/v1/speech/transcriptions/${keptId}/transcript/reassign`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ segment_id: segment.id, speaker: i % 2 ? 'S1' : 'new' }),
      });
      status = res.status;
      if (status >= 400 && status !== 507) throw new Error(`unexpected ${status}: ${res.text()}`);
      if (status === 507) expect(res.json()).toEqual({ detail: expect.stringMatching(/is full/) });
    }
    expect(status).toBe(507);
    const after = await (await fetch(`${svc.url}/v1/speech/transcriptions/${keptId}`, { headers: auth })).json();
    expect(after.status).toBe('complete');
    expect(after.transcript.segments.length).toBeGreaterThan(0);
  });

  it('works again once space is freed, and the database is intact', async () => {
    fs.rmSync(filler(), { force: true });
    fs.rmSync(`${filler()}.2`, { force: true });
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'full' }, { name: 'file', file: audio, filename: 'again.flac' }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    expect(integrityCheck(svc.dataDir)).toBe('ok');
  });
});
