// One HTTP/1.1 exchange written and read as bytes, for the checks an HTTP client library hides:
// a client that knows a HEAD answer has no content never reads bytes a server wrongly sends after
// it, which then corrupt the next answer on the connection. Plain TCP for http:, TLS for https:.
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawAnswer {
  /** The status line and header fields, as received (up to the blank line). */
  head: string;
  status: number;
  /** Every byte that followed the blank line until the connection went quiet or closed. */
  after: Buffer;
}

/**
 * Writes `method path` with `headers` (no body) to the origin of `baseUrl` and reads the answer's
 * head, then whatever else arrives within `quietMs` of the last byte (or until the server closes
 * the connection), at most `timeoutMs` in all.
 */
export async function rawExchange(baseUrl: string, method: string, path: string, headers: Record<string, string>, { quietMs = 300, timeoutMs = 10_000 } = {}): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const socket: Socket = url.protocol === 'https:' ? tlsConnect({ host: url.hostname, port, servername: url.hostname }) : tcpConnect({ host: url.hostname, port });
  const prefix = url.pathname.replace(/\/+$/, '');
  const lines = [`${method} ${prefix}${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
  return new Promise<RawAnswer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(overall);
      socket.destroy();
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`${method} ${path}: no complete answer head within ${timeoutMs} ms (${all.length} bytes)`));
      const head = all.subarray(0, end).toString('latin1');
      resolve({ head, status: Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head)?.[1] ?? 0), after: all.subarray(end + 4) });
    };
    const overall = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(quiet);
      if (Buffer.concat(chunks).includes('\r\n\r\n')) quiet = setTimeout(finish, quietMs);
    });
    socket.on('end', finish);
    socket.on('error', (error) => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(overall);
      reject(error);
    });
    socket.write(lines.join('\r\n'));
  });
}
