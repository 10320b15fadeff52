import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, DynamoDBRecord, SQSEvent } from 'aws-lambda';
import { eventOf } from '#lib/http/payload-v2.ts';
import { API_ID, type SynthesizedStack } from './cloudformation.ts';

/** The client address the stand-in gateway reports. */
const SOURCE_IP = '203.0.113.7';

/**
 * The events Lambda hands the functions, as AWS builds them: API Gateway HTTP API requests (payload 2.0),
 * DynamoDB stream batches and SQS batches.
 */

/** The host of the stand-in deployment's API (its default endpoint). */
export const API_HOST = (stack: SynthesizedStack): string => `${API_ID}.execute-api.${stack.region}.amazonaws.com`;

/** The route API Gateway picks for a request: its key, the function it integrates, its path parameters. */
export interface MatchedRoute {
  routeKey: string;
  functionLogicalId: string;
  pathParameters?: Record<string, string>;
}

/**
 * API Gateway's route selection over the template's routes (HTTP API: "the most specific match"): a route
 * of the request's path exactly, else one with path variables — `{name}` one whole segment, a final
 * greedy `{name+}` one or more segments (never an empty rest: `/api/v2/samples/` is no match for
 * `/api/v2/samples/{proxy+}`) — the one with the most literal segments first, else `$default`.
 */
export function matchRoute(stack: SynthesizedStack, method: string, path: string): MatchedRoute {
  const integrations = Object.fromEntries(
    stack.ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, r.Properties.IntegrationUri['Fn::GetAtt'][0] as string]),
  );
  const routes = stack.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => ({
    routeKey: r.Properties.RouteKey as string,
    functionLogicalId: integrations[r.Properties.Target['Fn::Join'][1][1].Ref]!,
  }));
  const segments = path.split('/').slice(1);
  const candidates = routes.flatMap((route) => {
    if (route.routeKey === '$default') return [];
    const [routeMethod, template = ''] = route.routeKey.split(' ');
    if (routeMethod !== 'ANY' && routeMethod !== method) return [];
    const parts = template.split('/').slice(1);
    const parameters: Record<string, string> = {};
    let literal = 0;
    for (const [i, part] of parts.entries()) {
      const variable = /^\{(\w+)(\+?)\}$/.exec(part);
      if (variable?.[2] === '+') {
        const rest = segments.slice(i).join('/');
        if (i !== parts.length - 1 || rest === '') return [];
        parameters[variable[1]!] = rest;
        return [{ ...route, parameters, literal }];
      }
      if (segments[i] === undefined || segments[i] === '') return [];
      if (variable) parameters[variable[1]!] = segments[i]!;
      else if (part === segments[i]) literal++;
      else return [];
    }
    return parts.length === segments.length ? [{ ...route, parameters, literal: literal + 1 }] : [];
  });
  const best = candidates.sort((a, b) => b.literal - a.literal)[0];
  if (best)
    return {
      routeKey: best.routeKey,
      functionLogicalId: best.functionLogicalId,
      ...(Object.keys(best.parameters).length ? { pathParameters: best.parameters } : {}),
    };
  const fallback = routes.find((route) => route.routeKey === '$default')!;
  return { routeKey: '$default', functionLogicalId: fallback.functionLogicalId };
}

export interface HttpRequest {
  method: string;
  /** Path and query string, as the client sent them. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * The payload 2.0 event API Gateway sends a function for a request to the stand-in deployment's default
 * endpoint over HTTPS: the event lib/http/payload-v2.ts builds (the one the local server hands its
 * handlers: cookies in `cookies`, bodies base64 for non-text media types, …), with the matched route's key,
 * its path parameters and the deployment's identity.
 */
export function httpEvent(stack: SynthesizedStack, req: HttpRequest): { event: APIGatewayProxyEventV2; route: MatchedRoute } {
  const [path = ''] = req.url.split('?');
  const route = matchRoute(stack, req.method, path);
  const headers: Record<string, string> = {
    host: API_HOST(stack),
    'user-agent': 'artifact-tier',
    'x-forwarded-for': SOURCE_IP,
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    'x-amzn-trace-id': `Root=1-${randomUUID().replace(/-/g, '').slice(0, 8)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}),
  };
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  const gateway = eventOf({
    method: req.method,
    target: req.url,
    headers,
    sourceIp: SOURCE_IP,
    ...(req.body !== undefined ? { body: Buffer.from(req.body) } : {}),
  });
  const event: APIGatewayProxyEventV2 = {
    ...gateway,
    routeKey: route.routeKey,
    requestContext: { ...gateway.requestContext, accountId: '123456789012', apiId: API_ID, domainPrefix: API_ID, routeKey: route.routeKey },
    ...(route.pathParameters ? { pathParameters: route.pathParameters } : {}),
  };
  return { event, route };
}

/** One call of DynamoDB Local's wire API, its JSON answer as it is (DynamoDB Local checks no signature). */
async function wireCall(endpoint: string, target: string, input: unknown): Promise<any> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': target,
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20261127/eu-west-2/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(input),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${target}: ${res.status} ${text}`);
  return JSON.parse(text);
}

type AttributeValue = Record<string, any>;

/** DynamoDB Local writes an empty map as `{}` in its stream records; DynamoDB (and so Lambda) as `{"M":{}}`. */
function attributeValue(value: AttributeValue): AttributeValue {
  if (Object.keys(value).length === 0) return { M: {} };
  if (value.M) return { M: attributeMap(value.M) };
  if (value.L) return { L: value.L.map(attributeValue) };
  return value;
}

const attributeMap = (map: Record<string, AttributeValue>): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(map).map(([name, value]) => [name, attributeValue(value)]));

/**
 * The records of the table's stream in DynamoDB Local, shard by shard, in the JSON the Streams API sends
 * — which is the JSON Lambda hands a stream consumer (`ApproximateCreationDateTime` in epoch seconds, binary
 * as base64) — with the stream's ARN as Lambda adds it.
 */
export async function lambdaStreamRecords(endpoint: string, tableName: string): Promise<DynamoDBRecord[]> {
  const { Table } = await wireCall(endpoint, 'DynamoDB_20120810.DescribeTable', { TableName: tableName });
  const streamArn: string = Table.LatestStreamArn;
  const { StreamDescription } = await wireCall(endpoint, 'DynamoDBStreams_20120810.DescribeStream', { StreamArn: streamArn });
  const records: DynamoDBRecord[] = [];
  for (const shard of StreamDescription.Shards as { ShardId: string }[]) {
    const start = { StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' };
    let iterator: string | undefined = (await wireCall(endpoint, 'DynamoDBStreams_20120810.GetShardIterator', start)).ShardIterator;
    // An open shard always answers a next iterator: stop at the first empty page.
    while (iterator) {
      const page: { Records: Record<string, any>[]; NextShardIterator?: string } = await wireCall(endpoint, 'DynamoDBStreams_20120810.GetRecords', {
        ShardIterator: iterator,
      });
      for (const record of page.Records) {
        const { NewImage, OldImage, Keys, ...rest } = record.dynamodb;
        const images = Object.fromEntries(Object.entries({ Keys, NewImage, OldImage }).flatMap(([k, v]) => (v ? [[k, attributeMap(v)]] : [])));
        records.push({ ...record, dynamodb: { ...rest, ...images }, eventSourceARN: streamArn } as DynamoDBRecord);
      }
      iterator = page.Records.length > 0 ? page.NextShardIterator : undefined;
    }
  }
  return records;
}

/** An SQS batch for the inbound consumer: one record per message body, received for the first time. */
export function sqsEvent(stack: SynthesizedStack, bodies: string[]): SQSEvent {
  const now = String(Date.now());
  return {
    Records: bodies.map((body) => ({
      messageId: randomUUID(),
      receiptHandle: `artifact-${randomUUID()}`,
      body,
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'AIDAARTIFACTTIER', ApproximateFirstReceiveTimestamp: now },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${stack.region}:123456789012:lts-inbound`,
      awsRegion: stack.region,
    })),
  };
}
