import { describe, expect, it } from 'vitest';
import { eventOf, isTextMediaType, responseOf } from '#lib/http/payload-v2.ts';

/** API Gateway's HTTP API payload format 2.0 (lib/http/payload-v2.ts): the event of a request, the response of a result. */

const request = { method: 'GET', target: '/api/v2/samples', headers: {}, sourceIp: '10.0.0.9' };

describe('eventOf', () => {
  it('lower-cases header names and joins a repeated header with commas', () => {
    const event = eventOf({ ...request, headers: { Host: 'lts.test', 'X-Trace': ['a', 'b'], 'x-TRACE': 'c', Accept: 'application/vnd.api+json' } });
    expect(event.headers).toEqual({ host: 'lts.test', 'x-trace': 'a,b,c', accept: 'application/vnd.api+json' });
  });

  it('moves cookies out of the headers into `cookies`, one name=value each, from every Cookie line', () => {
    const event = eventOf({ ...request, headers: { Cookie: ['lts_key=k%201; other=1', 'third=3;'], host: 'lts.test' } });
    expect(event.cookies).toEqual(['lts_key=k%201', 'other=1', 'third=3']);
    expect(event.headers).toEqual({ host: 'lts.test' });
    expect(eventOf(request).cookies).toBeUndefined();
  });

  it('keeps rawPath and rawQueryString as sent, and decodes queryStringParameters (a repeated key joined with commas)', () => {
    const event = eventOf({ ...request, target: '/api/v2/samples?filter%5Bname%5D=a%20b&filter[name]=c&page[size]=2&flag' });
    expect(event.rawPath).toBe('/api/v2/samples');
    expect(event.rawQueryString).toBe('filter%5Bname%5D=a%20b&filter[name]=c&page[size]=2&flag');
    expect(event.queryStringParameters).toEqual({ 'filter[name]': 'a b,c', 'page[size]': '2', flag: '' });
    expect(eventOf(request)).not.toHaveProperty('queryStringParameters');
    expect(eventOf(request).rawQueryString).toBe('');
  });

  it('passes text bodies as text and every other body base64-encoded, JSON:API and forms included; no body, no `body`', () => {
    const body = Buffer.from('{"data":"é"}');
    for (const type of ['application/json', 'text/plain; charset=utf-8', 'application/xml', 'application/javascript', 'TEXT/HTML']) {
      const event = eventOf({ ...request, method: 'POST', headers: { 'content-type': type }, body });
      expect([event.body, event.isBase64Encoded], type).toEqual(['{"data":"é"}', false]);
    }
    for (const type of ['application/vnd.api+json', 'application/x-www-form-urlencoded', 'application/octet-stream', undefined]) {
      const event = eventOf({ ...request, method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      expect([event.body, event.isBase64Encoded], String(type)).toEqual([body.toString('base64'), true]);
    }
    const empty = eventOf({ ...request, method: 'POST', body: Buffer.alloc(0) });
    expect(empty).not.toHaveProperty('body');
    expect(empty.isBase64Encoded).toBe(false);
  });

  it('fills requestContext.http and the request context as API Gateway does', () => {
    const event = eventOf({ ...request, method: 'DELETE', headers: { 'user-agent': 'limber/1', host: 'api.lts.test' }, requestId: 'r-1' });
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.http).toEqual({ method: 'DELETE', path: '/api/v2/samples', protocol: 'HTTP/1.1', sourceIp: '10.0.0.9', userAgent: 'limber/1' });
    expect(event.requestContext).toMatchObject({ requestId: 'r-1', domainName: 'api.lts.test', domainPrefix: 'api', stage: '$default' });
    expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  });
});

describe('responseOf', () => {
  it('sends each of `cookies` as its own Set-Cookie header, before any Set-Cookie of `headers`', () => {
    const response = responseOf({ statusCode: 303, headers: { Location: '/x', 'set-cookie': 'c=3' }, cookies: ['a=1; Path=/', 'b=2'] });
    expect(response.status).toBe(303);
    expect(response.headers).toEqual({ Location: '/x', 'Set-Cookie': ['a=1; Path=/', 'b=2', 'c=3'] });
    expect(response.body.length).toBe(0);
  });

  it('decodes a base64 body, and sends any other as UTF-8', () => {
    expect(responseOf({ statusCode: 200, body: Buffer.from([0, 255, 1]).toString('base64'), isBase64Encoded: true }).body).toEqual(Buffer.from([0, 255, 1]));
    expect(responseOf({ statusCode: 200, body: 'é' }).body).toEqual(Buffer.from('é'));
  });

  it('takes a result without statusCode as a 200 JSON body', () => {
    expect(responseOf({ data: [] } as never)).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"data":[]}') });
    expect(responseOf('hello').body.toString()).toBe('hello');
  });
});

it('isTextMediaType: text/*, JSON, XML and JavaScript only', () => {
  expect(['text/csv', 'application/json; charset=utf-8', 'application/xml'].map(isTextMediaType)).toEqual([true, true, true]);
  expect(['application/vnd.api+json', 'application/x-www-form-urlencoded', '', undefined].map(isTextMediaType)).toEqual([false, false, false, false]);
});
