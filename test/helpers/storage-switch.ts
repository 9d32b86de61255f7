import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * An HTTP relay in front of an S3 gateway that a test can take down and bring back: `down` stops listening and
 * drops every connection (a client then gets ECONNREFUSED, as from a gateway that is not running), `refuse`
 * drops the connection of each request the predicate picks (say, only reads) while others pass.
 */
export interface StorageSwitch {
  endpoint: string;
  refuse(which: ((req: http.IncomingMessage) => boolean) | null): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startStorageSwitch(target: string): Promise<StorageSwitch> {
  const upstream = new URL(target);
  let refused: ((req: http.IncomingMessage) => boolean) | null = null;
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (refused?.(req)) {
      req.socket.destroy();
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const down = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    refuse: (which) => (refused = which),
    down,
    up: async () => {
      if (!server.listening) await listen(port);
    },
    close: down,
  };
}
