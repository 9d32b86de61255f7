import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';
import { freePort } from './free-port';

/** A throwaway S3 gateway (Ceph's radosgw on a one-OSD in-memory cluster) on loopback ports. */
export interface ThrowawayS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Makes a bucket and returns the blob store on it under `prefix` (as TAKELINE_STORAGE_URL=s3://bucket/prefix would). */
  bucket(name: string, prefix: string): Promise<S3BlobStore>;
  stop(): Promise<void>;
}

export function cephInstalled(): boolean {
  return ['ceph-mon', 'ceph-osd', 'radosgw', 'monmaptool', 'radosgw-admin'].every((tool) => spawnSync('which', [tool]).status === 0);
}

function run(program: string, args: string[], timeoutMs = 60_000): string {
  const result = spawnSync(program, args, { encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * Debian's Ceph (16.2) as a single node: a monitor, one OSD on memstore (512 MiB, nothing on disk) and a
 * radosgw with the beast frontend, with authentication off (so every messenger mode must be `crc`). It
 * starts in a few seconds; `stop` kills the daemons and removes the folder.
 *
 * A command sent before the client has the monitor's map goes out with a zero fsid and is refused (EPERM,
 * "wrong fsid"); once an OSD hit that, restarting the same OSD failed the same way (CI, under load). So each
 * step waits for the monitor to answer, and a cluster that still fails to come up is thrown away and made
 * again from nothing (fresh folder, fsid and ports), up to three times.
 */
export async function startS3(): Promise<ThrowawayS3> {
  if (!cephInstalled()) throw new Error("Ceph is not installed (bash scripts/setup.sh installs Debian's ceph-mon, ceph-osd and radosgw)");
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCluster();
    } catch (error) {
      if (attempt >= 3) throw error;
      console.warn(`The throwaway S3 gateway did not come up (attempt ${attempt}), starting a new one: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}

async function startCluster(): Promise<ThrowawayS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-s3-'));
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const fsid = crypto.randomUUID();
  const conf = path.join(dir, 'ceph.conf');
  const at = (name: string) => path.join(dir, name);
  for (const sub of ['run', 'log', 'mon', 'osd', 'rgw']) fs.mkdirSync(at(sub));
  fs.writeFileSync(
    conf,
    [
      '[global]',
      `fsid = ${fsid}`,
      `mon host = v1:127.0.0.1:${monPort}`,
      'public addr = 127.0.0.1',
      'auth cluster required = none',
      'auth service required = none',
      'auth client required = none',
      'ms bind msgr2 = false',
      ...['cluster', 'service', 'client', 'mon cluster', 'mon service', 'mon client'].map((m) => `ms ${m} mode = crc`),
      'osd objectstore = memstore',
      'memstore device bytes = 536870912',
      'osd pool default size = 1',
      'osd pool default min size = 1',
      'osd pool default pg num = 8',
      'osd pool default pgp num = 8',
      'mon allow pool size one = true',
      'mon warn on pool no redundancy = false',
      'mon max pg per osd = 1000',
      'osd crush chooseleaf type = 0',
      `run dir = ${at('run')}`,
      `admin socket = ${at('run')}/$name.asok`,
      `log file = ${at('log')}/$name.log`,
      `pid file = ${at('run')}/$name.pid`,
      `mon data = ${at('mon')}/$id`,
      `osd data = ${at('osd')}/$id`,
      `keyring = ${at('keyring')}`,
      `rgw data = ${at('rgw')}`,
      '',
    ].join('\n'),
  );
  const stop = async () => {
    for (const pidFile of fs.existsSync(at('run')) ? fs.readdirSync(at('run')).filter((f) => f.endsWith('.pid')) : []) {
      const pid = Number(fs.readFileSync(path.join(at('run'), pidFile), 'utf8'));
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('ceph-authtool', ['--create-keyring', at('keyring'), '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *']);
    run('monmaptool', ['--create', '--addv', 'a', `[v1:127.0.0.1:${monPort}]`, '--fsid', fsid, at('monmap')]);
    run('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', at('monmap'), '--keyring', at('keyring')]);
    run('ceph-mon', ['-c', conf, '-i', 'a']);
    await retry(() => run('ceph', ['-c', conf, '--connect-timeout', '30', 'mon', 'stat']), 5);
    const osdUuid = crypto.randomUUID();
    let id = '';
    await retry(() => (id = run('ceph', ['-c', conf, '--connect-timeout', '30', 'osd', 'new', osdUuid]).trim()), 3);
    fs.mkdirSync(path.join(at('osd'), id));
    run('ceph-osd', ['-c', conf, '-i', id, '--mkfs', '--osd-uuid', osdUuid]);
    // Right after mkfs the OSD sometimes exits (250) before the monitor has settled its map: try again.
    await retry(() => run('ceph-osd', ['-c', conf, '-i', id]), 3);
    run('radosgw', ['-c', conf, '-n', 'client.rgw.a', '--rgw-frontends', `beast endpoint=127.0.0.1:${rgwPort}`]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await waitFor(async () => (await fetch(endpoint).catch(() => null))?.status === 200, 60_000, 'the S3 gateway');
    const accessKeyId = `TL${crypto.randomBytes(9).toString('hex').toUpperCase()}`;
    const secretAccessKey = crypto.randomBytes(20).toString('hex');
    run('radosgw-admin', ['-c', conf, 'user', 'create', '--uid=takeline', '--display-name=takeline', `--access-key=${accessKeyId}`, `--secret=${secretAccessKey}`]);
    const region = 'us-east-1';
    const credentials = { accessKeyId, secretAccessKey };
    const bucket = async (name: string, prefix: string) => {
      const admin = new S3Client({ endpoint, region, forcePathStyle: true, credentials });
      try {
        await admin.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        admin.destroy();
      }
      return new S3BlobStore({ bucket: name, prefix, endpoint, region, credentials });
    };
    return { endpoint, region, accessKeyId, secretAccessKey, bucket, stop };
  } catch (error) {
    const logs = fs.existsSync(at('log')) ? fs.readdirSync(at('log')).map((f) => `${f}: ${fs.readFileSync(path.join(at('log'), f), 'utf8').slice(-800)}`) : [];
    await stop();
    throw new Error(`${(error as Error).message}\n${logs.join('\n')}`);
  }
}

async function retry(step: () => unknown, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      step();
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
}

async function waitFor(ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer within ${timeoutMs / 1000} s`);
}

