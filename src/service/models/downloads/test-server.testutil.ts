import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileServer {
  url: string;
  /** Range headers of the requests received, in order ('' when none). */
  ranges: string[];
  /** Bytes of body sent over all requests. */
  sentBytes(): number;
  /** The next response stops (connection destroyed) after this many body bytes. */
  cutNextAfter(bytes: number): void;
  /** Answers 200 with the whole file even when asked for a range. */
  ignoreRanges: boolean;
  /** While true, responses hold after the piece they sent (a download stays in progress until it is false again). */
  paused: boolean;
  close(): Promise<void>;
}

/** Deterministic pseudo-random bytes, so a test knows its file's checksum. */
export function testBytes(size: number, seed = 'takeline'): Buffer {
  const out = Buffer.alloc(size);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < size; i += block.length) {
    block.copy(out, i);
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

export const sha1 = (data: Buffer) => crypto.createHash('sha1').update(data).digest('hex');

/**
 * A local HTTP server for one file at /<name>, with HTTP Range support like a CDN's, sending it in 64 KiB
 * pieces (a small pause between them, so a test can watch progress) and able to cut a response short.
 */
export async function serveFile(name: string, data: Buffer, options: { pauseMs?: number } = {}): Promise<FileServer> {
  let sent = 0;
  let cutAfter: number | null = null;
  const ranges: string[] = [];
  const state = { ignoreRanges: false, paused: false };
  const server = http.createServer(async (req, res) => {
    if (req.url !== `/${name}`) {
      res.writeHead(404).end('not found');
      return;
    }
    const range = req.headers.range ?? '';
    ranges.push(range);
    let start = 0;
    const match = /^bytes=(\d+)-$/.exec(range);
    if (match && !state.ignoreRanges) {
      start = Number(match[1]);
      if (start >= data.length) {
        res.writeHead(416, { 'Content-Range': `bytes */${data.length}` }).end();
        return;
      }
      res.writeHead(206, { 'Content-Length': data.length - start, 'Content-Range': `bytes ${start}-${data.length - 1}/${data.length}`, 'Accept-Ranges': 'bytes' });
    } else {
      res.writeHead(200, { 'Content-Length': data.length, 'Accept-Ranges': 'bytes' });
    }
    const cut = cutAfter;
    cutAfter = null;
    let written = 0;
    for (let at = start; at < data.length; at += 65536) {
      const piece = data.subarray(at, Math.min(data.length, at + 65536));
      if (cut !== null && written + piece.length > cut) {
        const head = piece.subarray(0, cut - written);
        res.write(head);
        sent += head.length;
        await new Promise((r) => setTimeout(r, 20));
        req.socket.destroy();
        return;
      }
      if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
      written += piece.length;
      sent += piece.length;
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      while (state.paused && !res.destroyed && !req.socket.destroyed) await new Promise((r) => setTimeout(r, 20));
      if (res.destroyed) return;
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ranges,
    sentBytes: () => sent,
    cutNextAfter: (bytes) => (cutAfter = bytes),
    get ignoreRanges() {
      return state.ignoreRanges;
    },
    set ignoreRanges(v: boolean) {
      state.ignoreRanges = v;
    },
    get paused() {
      return state.paused;
    },
    set paused(v: boolean) {
      state.paused = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
