import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { MAX_BODY_BYTES } from '#lib/jsonapi/request-checks.ts';
import type { LambdaHandler } from '#lib/http/handler.ts';
import { forwardedProto } from '#lib/http/base-url.ts';
import { eventOf, responseOf } from '#lib/http/payload-v2.ts';
import { JSON_API } from '#lib/http/request.ts';
import { errors, internalError } from '#lib/jsonapi/errors.ts';

/**
 * Serves the route table over node:http through the very same Lambda handlers: each request becomes
 * the API Gateway (HTTP API, payload 2.0) event the function would receive on AWS.
 */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    // Keep one byte past the limit, enough for the handler to answer 413 (after authentication).
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  if (size === 0) return undefined;
  return Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES + 1);
}

/**
 * The payload-2.0 event of a request to this server. Where API Gateway sets X-Forwarded-Proto to `https`
 * (the scheme it was called with), this plain-HTTP server keeps a client's `http` or `https` (a TLS proxy in
 * front of it) and otherwise says `http`: a junk value never changes the scheme of links.
 */
function toEvent(req: IncomingMessage, body: Buffer | undefined): APIGatewayProxyEventV2 {
  const proto = forwardedProto(req.headersDistinct['x-forwarded-proto']?.join(',')) ?? 'http';
  return eventOf({
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers: { ...req.headersDistinct, 'x-forwarded-proto': proto },
    ...(body !== undefined ? { body } : {}),
    sourceIp: req.socket.remoteAddress ?? '',
    protocol: `HTTP/${req.httpVersion}`,
  });
}

/**
 * A request node:http cannot parse never reaches a handler (a method outside its list, such as `FOO`;
 * headers over its limit; a malformed request line). Node would answer a bare 400 with no body: answer
 * a JSON:API error document like every other error, then close the connection, which cannot be reused.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431 ? 'The request headers are too large' : status === 408 ? 'The request took too long to arrive' : 'The request is not valid HTTP/1.1';
  const body = JSON.stringify({ errors: errors.invalidHttp(status, detail).errors });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_API}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createLocalServer(handlerForPath: (path: string) => LambdaHandler): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        const event = toEvent(req, await readBody(req));
        const response = responseOf(await handlerForPath(event.rawPath)(event, { awsRequestId: event.requestContext.requestId } as Context));
        // Once the server is closing, a response is the last on its connection, so draining need not wait for idle keep-alives.
        if (!server.listening) res.setHeader('Connection', 'close');
        res.writeHead(response.status, response.headers);
        res.end(response.body);
      } catch (error) {
        // A client that went away mid-request has nobody to answer (the local service closes such connections when it stops).
        if (req.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
        // The handlers answer every error themselves; this only guards the transport.
        console.error(error);
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_API, ...(server.listening ? {} : { Connection: 'close' }) });
        res.end(JSON.stringify({ errors: [internalError] }));
      }
    })();
  });
  server.on('clientError', answerClientError);
  return server;
}
