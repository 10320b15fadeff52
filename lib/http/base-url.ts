import { isIPv6 } from 'node:net';
import { errors, show } from '#lib/jsonapi/errors.ts';

/**
 * The `<scheme>://<host>` every link of a response starts with. Links end up in documents, in stored
 * idempotent responses and in the domain events other systems read, so they are never built from a
 * header value that is not a plain host:
 *
 * - `LTS_BASE_URL`, when set, is used as is (it must be an absolute http or https URL).
 * - Otherwise the `Host` header, which on AWS is set by API Gateway to the API's own domain. It must be a
 *   hostname (RFC 3986 reg-name restricted to letters, digits, `-`, `_` and dots), an IPv4 address or a
 *   bracketed IPv6 address, optionally with a port: no userinfo, path, query or fragment. Anything else
 *   is a 400 naming the header; without a Host header (HTTP/1.0) links use `localhost`.
 * - `X-Forwarded-Host` is ignored: API Gateway passes it through from the client unchecked, so honouring
 *   it would let any caller put another host into links (and into events). Behind a proxy, set LTS_BASE_URL.
 * - `X-Forwarded-Proto` (set by API Gateway) is honoured when it is `http` or `https`; anything else is
 *   ignored and `https` is used.
 */

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The host (with port) lower-cased if it is well-formed, else undefined. */
export function wellFormedHost(value: string): string | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, host = '', port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
  if (host.startsWith('[')) {
    if (!isIPv6(host.slice(1, -1))) return undefined;
  } else if (!IPV4.test(host)) {
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    if (name.length === 0 || name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) return undefined;
    // A name of digits and dots only that is not a valid IPv4 address (e.g. 999.1.1.1) is no hostname either.
    if (/^[\d.]+$/.test(name)) return undefined;
  }
  return port === undefined ? host : `${host}:${Number(port)}`;
}

/** `http` or `https` from X-Forwarded-Proto (its first value), else undefined. */
export function forwardedProto(value: string | undefined): 'http' | 'https' | undefined {
  const proto = value?.split(',')[0]?.trim().toLowerCase();
  return proto === 'http' || proto === 'https' ? proto : undefined;
}

/** The base of every link for a request with these (lower-cased) headers; a 400 for a malformed Host. */
export function baseUrl(configured: string | undefined, headers: Record<string, string>): string {
  if (configured) return configured.replace(/\/+$/, '');
  const proto = forwardedProto(headers['x-forwarded-proto']) ?? 'https';
  const raw = headers.host;
  if (raw === undefined || raw.trim() === '') return `${proto}://localhost`;
  const host = wellFormedHost(raw);
  if (!host) throw errors.invalidHeader('Host', `Host ${show(raw)} is not a valid host; send a hostname or IP address, optionally with a port`);
  return `${proto}://${host}`;
}
