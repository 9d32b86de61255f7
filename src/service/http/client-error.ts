import type { Socket } from 'node:net';
import { errorStyleFor, HttpError, renderError } from './errors';

/**
 * Node's HTTP parser refuses some requests before express sees them (a request line or headers over
 * 16 KiB, malformed syntax) and by default answers with a bare status and no body. Answer them in the
 * documented shape instead, choosing it from the path when enough of the request arrived to read it.
 */
export function clientErrorResponse(error: { code?: string; rawPacket?: unknown }): string {
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || error.code === 'HPE_URI_TOO_LONG';
  const status = tooLarge ? 431 : 400;
  const message = tooLarge ? 'The request line or headers are too large (16 KiB at most).' : 'The request is not valid HTTP.';
  const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 64).toString('latin1') : '';
  const path = /^[A-Z]+ (\/\S*)/.exec(packet)?.[1] ?? '/';
  const rendered = renderError(new HttpError(status, message, { code: tooLarge ? 'request_too_large' : 'bad_request' }), errorStyleFor(path));
  const body = JSON.stringify(rendered.body);
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A peer that reset or timed out needs no answer.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error));
}
