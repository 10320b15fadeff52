import { Agent, request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { Capacity } from '#lib/store/client.ts';

/** X-DynamoDB-Capacity's two numbers (`read=<units>, write=<units>`: lib/store/client.ts, `capacityHeader`). */
function capacityOf(header: string | string[] | undefined): Capacity | undefined {
  const match = typeof header === 'string' ? /^read=([\d.]+), write=([\d.]+)$/.exec(header) : null;
  return match ? { read: Number(match[1]), write: Number(match[2]) } : undefined;
}

/** Two replies' capacity as one (a walk's pages, a unit's writes): absent if either reported none. */
export const sumCapacity = (a: Capacity | undefined, b: Capacity | undefined): Capacity | undefined =>
  a && b ? { read: a.read + b.read, write: a.write + b.write } : undefined;

export interface Reply {
  status: number;
  /** Wall time from sending the request to the last byte of the body, ms. */
  ms: number;
  /** The server's X-DynamoDB-Calls. */
  calls: number;
  /** The capacity units its X-DynamoDB-Capacity reported (absent: not reported, e.g. a walk's failure). */
  capacity?: Capacity;
  /** The body as text (inflated here, after `ms`, when it came gzip-encoded). */
  text: string;
  /** Its Content-Encoding, if any. */
  encoding?: string;
}

/**
 * A small keep-alive HTTP client for one server (node:http: less overhead on the measuring side than
 * fetch, and the same for both servers). Sockets are kept alive and reused from request to request.
 */
export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 128 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  /** `headers`: this request's own, beside the client's (e.g. Limber's Accept-Encoding). */
  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    try {
      return await this.attempt(method, path, payload, headers);
    } catch (error) {
      // A kept-alive socket the server closed while idle (its keep-alive timeout, e.g. while the other side
      // was measured) fails on reuse before the request reached the server: Node's documented case for a retry.
      if ((error as { reusedSocket?: boolean }).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
        return this.attempt(method, path, payload, headers);
      }
      throw error;
    }
  }

  private attempt(method: string, path: string, payload: string | undefined, headers: Record<string, string>): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(
        {
          agent: this.agent,
          host: this.host,
          port: this.port,
          method,
          path: `/api/v2${path}`,
          headers: { ...this.headers, ...headers, ...(payload === undefined ? {} : { 'Content-Length': Buffer.byteLength(payload) }) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const ms = performance.now() - started;
            const body = Buffer.concat(chunks);
            const encoding = res.headers['content-encoding'];
            const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
            const capacity = capacityOf(res.headers['x-dynamodb-capacity']);
            resolve({
              status: res.statusCode ?? 0,
              ms,
              calls: Number(res.headers['x-dynamodb-calls'] ?? NaN),
              text,
              ...(encoding ? { encoding } : {}),
              ...(capacity ? { capacity } : {}),
            });
          });
        },
      );
      req.on('error', (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
      req.end(payload);
    });
  }

  /** A request that must succeed (seeding): the parsed document, or an error naming the request. */
  async json(method: string, path: string, body?: unknown): Promise<{ data: any; [key: string]: any }> {
    const reply = await this.send(method, path, body);
    if (reply.status >= 400) throw new Error(`${method} ${path} → ${reply.status}: ${reply.text.slice(0, 500)}`);
    return JSON.parse(reply.text);
  }

  close(): void {
    this.agent.destroy();
  }
}
