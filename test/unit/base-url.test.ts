import { describe, expect, it } from 'vitest';
import { baseUrl, forwardedProto, wellFormedHost } from '#lib/http/base-url.ts';
import { JsonApiError } from '#lib/jsonapi/errors.ts';

describe('wellFormedHost', () => {
  it.each([
    ['lts.test', 'lts.test'],
    ['LTS.Example.org', 'lts.example.org'],
    ['localhost:3000', 'localhost:3000'],
    ['lts_api.internal', 'lts_api.internal'],
    ['abc123.execute-api.eu-west-2.amazonaws.com', 'abc123.execute-api.eu-west-2.amazonaws.com'],
    ['example.org.', 'example.org.'],
    ['192.168.0.1', '192.168.0.1'],
    ['192.168.0.1:8080', '192.168.0.1:8080'],
    ['[::1]', '[::1]'],
    ['[2001:db8::7]:443', '[2001:db8::7]:443'],
    ['lts.test:0080', 'lts.test:80'],
  ])('%j → %j', (value, host) => expect(wellFormedHost(value)).toBe(host));

  it.each([
    '',
    ':80',
    'user@lts.test',
    'lts.test/path',
    'lts.test?q',
    'lts.test#f',
    'javascript://x',
    'lts.test:99999',
    'lts.test:0',
    'lts.test:',
    'lts test',
    'lts..test',
    '-lts.test',
    'lts-.test',
    '256.1.1.1',
    '1.2.3',
    '[::1',
    '[not-ip]',
    '::1',
    'exämple.test',
    '%6cts.test',
    `${'a'.repeat(64)}.test`,
    `${'a.'.repeat(127)}test`,
  ])('%j → not a host', (value) => expect(wellFormedHost(value)).toBeUndefined());
});

describe('baseUrl', () => {
  it('uses LTS_BASE_URL whatever the headers, without a trailing slash', () => {
    expect(baseUrl('https://lims.example.org/lts/', { host: 'evil/x', 'x-forwarded-proto': 'javascript' })).toBe('https://lims.example.org/lts');
  });
  it('uses Host with X-Forwarded-Proto when that is http or https, else https', () => {
    expect(baseUrl(undefined, { host: 'lts.test', 'x-forwarded-proto': 'http' })).toBe('http://lts.test');
    expect(baseUrl(undefined, { host: 'lts.test', 'x-forwarded-proto': 'gopher' })).toBe('https://lts.test');
    expect(baseUrl(undefined, { host: 'lts.test' })).toBe('https://lts.test');
  });
  it.each([
    ['HTTP', 'http'],
    [' Https ', 'https'],
    ['javascript', undefined],
    ['', undefined],
    ['http:', undefined],
    ['ftp, http', undefined],
  ])('forwardedProto(%j) → %j (http or https in any case, anything else ignored)', (value, proto) => {
    expect(forwardedProto(value)).toBe(proto);
  });
  it('ignores X-Forwarded-Host', () => {
    expect(baseUrl(undefined, { host: 'lts.test', 'x-forwarded-host': 'evil.example' })).toBe('https://lts.test');
  });
  it('uses localhost without a Host, and refuses a malformed one with a 400 naming the header', () => {
    expect(baseUrl(undefined, {})).toBe('https://localhost');
    let error: unknown;
    try {
      baseUrl(undefined, { host: 'evil.example/x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonApiError);
    expect((error as JsonApiError).status).toBe(400);
    expect((error as JsonApiError).errors[0]).toMatchObject({ code: 'invalid_header', source: { header: 'Host' } });
  });
});
