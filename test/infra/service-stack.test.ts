import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { INBOUND_MAX_RECEIVE_COUNT } from '../../infra/events.ts';
import { DEAD_LETTER_DETAIL_TYPE, DEAD_LETTER_SOURCE } from '#lib/events/dead-letters.ts';
import { SWEEP_SCHEDULE_MS } from '#lib/store/recovery.ts';
import { stageSettings } from '../../infra/stage.ts';
import { ENGINE_ACCESS, PUBLISHER_ACCESS, type TableAccess } from '../../infra/table.ts';
import { FALLBACK, routes } from '#lib/routes.ts';
import { indexProjection, tableDefinition } from '#lib/store/table.ts';
import { serviceStack } from '../support/cdk-app.ts';
import { SynthesizedStack } from '../support/cloudformation.ts';
import { matchRoute } from '../support/lambda-events.ts';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };

const dev = serviceStack('dev');
const template = Template.fromStack(dev);
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalId = (construct: { node: { defaultChild?: unknown } }) => dev.getLogicalId(construct.node.defaultChild as CfnElement);

describe('the API', () => {
  it('has one function per route of the route table, the two event functions and the sweeper, and no other', () => {
    const functions = ofType('AWS::Lambda::Function').map(([id]) => id);
    const expected = [
      ...routes.map((r) => logicalId(dev.api.functions[r.name]!)),
      logicalId(dev.events.publisher),
      logicalId(dev.events.inbound),
      logicalId(dev.sweeper.fn),
    ];
    expect(functions.sort()).toEqual(expected.sort());
    expect(functions).toHaveLength(routes.length + 3);
  });

  it("routes each type's paths and pages, and only those, to its own function (payload 2.0); the fallback serves $default", () => {
    const integrationFunction = Object.fromEntries(
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => {
        expect(r.Properties.PayloadFormatVersion, id).toBe('2.0');
        return [id, r.Properties.IntegrationUri['Fn::GetAtt'][0]];
      }),
    );
    // A route's target is `integrations/<integration id>`.
    const served = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => [r.Properties.RouteKey, integrationFunction[r.Properties.Target['Fn::Join'][1][1].Ref]]);
    const expected = routes.flatMap((route) => {
      const fn = logicalId(dev.api.functions[route.name]!);
      return route.name === FALLBACK
        ? [['$default', fn]]
        : [[`ANY /api/v2/${route.name}`, fn], [`ANY /api/v2/${route.name}/{proxy+}`, fn], ...route.pages.map((page) => [`ANY ${page}`, fn])];
    });
    expect(served.sort()).toEqual(expected.sort());
  });

  it('runs every route function on Node.js 22, ARM64, traced, the table and its own log group, without parsing source maps at start', () => {
    for (const route of routes) {
      const fn = resources[logicalId(dev.api.functions[route.name]!)]!;
      expect(fn.Properties, route.name).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Timeout: 28,
        Environment: { Variables: { LTS_TABLE_NAME: { Ref: logicalId(dev.table) }, LTS_REQUEST_BUDGET_MS: '25000' } },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
      // The function answers the request's 503 itself: its timeout leaves time after the budget, and API Gateway waits at most 29 s.
      const budgetSeconds = Number(fn.Properties.Environment.Variables.LTS_REQUEST_BUDGET_MS) / 1000;
      expect(fn.Properties.Timeout - budgetSeconds, route.name).toBeGreaterThanOrEqual(2);
      expect(fn.Properties.Timeout, route.name).toBeLessThan(29);
      // --enable-source-maps would read and parse the 2 MB map at every cold start (lib/stack-trace.ts maps stacks on demand).
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, route.name).toBeUndefined();
    }
    const logGroups = ofType('AWS::Logs::LogGroup');
    // A log group per function (the routes', the two event functions', the sweeper's) and the access log.
    expect(logGroups).toHaveLength(routes.length + 4);
    for (const [id, group] of logGroups) expect(group.Properties.RetentionInDays, id).toBe(7);
  });

  it('lets each route function be invoked by this API through one permission, not one per route (the stack stays under 500 resources)', () => {
    const apiId = logicalId(dev.api.api);
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'apigateway.amazonaws.com');
    for (const route of routes) {
      const own = permissions.filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === logicalId(dev.api.functions[route.name]!));
      expect(own, route.name).toHaveLength(1);
      expect(JSON.stringify(own[0]![1].Properties.SourceArn), route.name).toContain(`{"Ref":"${apiId}"}`);
    }
    expect(permissions).toHaveLength(routes.length);
    expect(Object.keys(resources).length).toBeLessThan(500);
  });

  it('throttles the stage and writes access logs', () => {
    const { throttle } = stageSettings('dev');
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  it('has no authorizer and no usage plan: the functions check API keys from the table', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 0);
    for (const [id, route] of ofType('AWS::ApiGatewayV2::Route')) expect(route.Properties.AuthorizationType ?? 'NONE', id).toBe('NONE');
  });

  it('outputs the API URL, the bus name and the inbound queue URL', () => {
    const outputs = Object.entries(template.toJSON().Outputs as Record<string, { Value: unknown }>);
    const output = (pattern: RegExp) => outputs.find(([id]) => pattern.test(id))?.[1].Value;
    expect(JSON.stringify(output(/^ApiUrl/))).toContain('execute-api');
    expect(output(/^EventsBusName/)).toEqual({ Ref: logicalId(dev.events.bus) });
    expect(output(/^EventsInboundQueueUrl/)).toEqual({ Ref: logicalId(dev.events.inboundQueue) });
    expect(output(/^AlarmsTopicArn/)).toEqual({ Ref: logicalId(dev.alarms.topic) });
  });

  it('hands /api/v2/<type>/ (a trailing slash: no route key of the type takes it) to $default, whose function serves it as the type’s own', () => {
    const deployed = new SynthesizedStack(dev, 'lts-table');
    const fallback = logicalId(dev.api.functions[FALLBACK]!);
    for (const route of routes.filter((r) => r.name !== FALLBACK)) {
      const own = logicalId(dev.api.functions[route.name]!);
      expect(matchRoute(deployed, 'GET', `/api/v2/${route.name}`).functionLogicalId, route.name).toBe(own);
      expect(matchRoute(deployed, 'GET', `/api/v2/${route.name}/1/`).functionLogicalId, route.name).toBe(own);
      expect(matchRoute(deployed, 'POST', `/api/v2/${route.name}/`), route.name).toEqual({ routeKey: '$default', functionLogicalId: fallback });
    }
    // The fallback's entry hands any path of a type to that type's chain (test/artifact/functions.test.ts runs it, bundled, on these paths).
    expect(readFileSync('functions/not-found.ts', 'utf8')).toMatch(/routeForPath\(event\.rawPath\)[\s\S]*createHandler\(route\.name\)/);
  });

  it('outputs the table’s name, which `npm run admin -- … --aws` needs as LTS_TABLE_NAME', () => {
    expect(template.toJSON().Outputs.TableName).toMatchObject({ Value: { Ref: logicalId(dev.table) } });
  });
});

describe('the table', () => {
  const [, table] = ofType('AWS::DynamoDB::Table')[0]!;

  it('is built from the shared definition', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(1);
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(
      table.Properties.GlobalSecondaryIndexes.map((i: any) => [i.IndexName, i.KeySchema[0].AttributeName, i.KeySchema[1].AttributeName, i.Projection]),
    ).toEqual(tableDefinition.indexes.map((i) => [i.name, i.partitionKey, i.sortKey, indexProjection(i)]));
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true });
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('is on-demand with point-in-time recovery and no physical name', () => {
    expect(table.Properties).toMatchObject({ BillingMode: 'PAY_PER_REQUEST', PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
    expect(table.Properties.TableName).toBeUndefined();
  });

  it('is retained and deletion-protected in prod; dev may be destroyed with its stack', () => {
    const prod = Template.fromStack(serviceStack('prod'));
    prod.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
    expect(table).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(table.Properties.DeletionProtectionEnabled).not.toBe(true);
  });

  it('is granted to every function as exactly what it calls: the engine’s reads and writes to the API and the inbound consumer, chunk reads to the publisher', () => {
    const tableArn = { 'Fn::GetAtt': [logicalId(dev.table), 'Arn'] };
    const indexes = { 'Fn::Join': ['', [tableArn, '/index/*']] };
    const grantsOf = (fn: { role?: unknown }) => {
      const role = logicalId((fn as any).role);
      const statements = ofType('AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === role))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
      const on = (resource: unknown) =>
        statements
          .filter((s: any) => [s.Resource].flat().some((r: unknown) => JSON.stringify(r) === JSON.stringify(resource)))
          .flatMap((s: any) => [s.Action].flat());
      return { table: on(tableArn).sort(), indexes: on(indexes).sort() };
    };
    const sorted = (access: TableAccess) => ({ table: [...access.table].sort(), indexes: [...access.indexes].sort() });
    // A transaction is authorised by the actions of its items (IAM has no TransactWriteItems action); no
    // write stages a ConditionCheck item, so ConditionCheckItem is not granted.
    expect(ENGINE_ACCESS.table).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
    expect(ENGINE_ACCESS.table).not.toContain('dynamodb:ConditionCheckItem');
    for (const route of routes) expect(grantsOf(dev.api.functions[route.name]!), route.name).toEqual(sorted(ENGINE_ACCESS));
    expect(grantsOf(dev.events.inbound)).toEqual(sorted(ENGINE_ACCESS));
    // The sweeper ends abandoned large writes with the engine's own calls (lib/store/recovery.ts).
    expect(grantsOf(dev.sweeper.fn)).toEqual(sorted(ENGINE_ACCESS));
    expect(grantsOf(dev.events.publisher)).toEqual(sorted(PUBLISHER_ACCESS));
    // test/artifact/functions.test.ts holds these lists to the calls the deployed functions make.
    for (const unused of ['dynamodb:Scan', 'dynamodb:BatchWriteItem', 'dynamodb:DescribeTable']) expect(ENGINE_ACCESS.table).not.toContain(unused);
  });
});

describe('events', () => {
  it('publishes from the stream: only request items inserted, in commit order, with retries, bisection, partial failures and a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(dev.events.publisher) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(dev.table), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: Match.anyValue(),
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(dev.events.publisherDeadLetters), 'Arn'] } } },
    });
    const [, mapping] = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === logicalId(dev.events.publisher))!;
    expect(mapping.Properties.FilterCriteria.Filters.map((f: any) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { __edb_e__: { S: ['request'] } } } },
    ]);
  });

  it('lets the publisher put events on the bus it is told of', () => {
    const publisher = resources[logicalId(dev.events.publisher)]!;
    expect(publisher.Properties.Environment.Variables.LTS_EVENT_BUS_NAME).toEqual({ Ref: logicalId(dev.events.bus) });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [logicalId(dev.events.bus), 'Arn'] } })]),
      },
    });
  });

  it('routes the dead letters the publisher puts on its bus to its dead-letter queue, the letter alone as the message', () => {
    const [, rule] = ofType('AWS::Events::Rule').find(([id]) => id === logicalId(dev.events.deadLetterRule))!;
    expect(rule.Properties.EventBusName).toEqual({ Ref: logicalId(dev.events.bus) });
    expect(rule.Properties.EventPattern).toEqual({ source: [DEAD_LETTER_SOURCE], 'detail-type': [DEAD_LETTER_DETAIL_TYPE] });
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(dev.events.publisherDeadLetters), 'Arn'] }, InputPath: '$.detail' }),
    ]);
    // The queue lets that rule, and only it, send to it.
    const statements = ofType('AWS::SQS::QueuePolicy')
      .filter(([, p]) => p.Properties.Queues.some((q: any) => q.Ref === logicalId(dev.events.publisherDeadLetters)))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalId(dev.events.deadLetterRule), 'Arn'] } } },
      }),
    );
  });

  it("grants the publisher's role only what its calls and its stream mapping use: the bus, table reads, the stream, its dead-letter queue", () => {
    const roleId = logicalId((dev.events.publisher as any).role);
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    const actions = statements.flatMap((s: any) => [].concat(s.Action)).sort();
    // The SQS actions are those the stream mapping's on-failure destination needs (Lambda sends as the role);
    // the publisher's own dead letters go through the bus (events:PutEvents), so it is granted nothing more.
    expect(actions.filter((a: string) => !a.startsWith('dynamodb:'))).toEqual([
      'events:PutEvents',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
    expect(
      actions.filter((a: string) => a.startsWith('dynamodb:') && !/^dynamodb:(Get|Query|Scan|Batch.*Get|Describe|ListStreams|ConditionCheck)/.test(a)),
    ).toEqual([]);
  });

  it('consumes the inbound queue ten messages a batch with partial failures, after which messages go to its dead-letter queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(dev.events.inbound) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(dev.events.inboundQueue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const queue = resources[logicalId(dev.events.inboundQueue)]!;
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(dev.events.inboundDeadLetters), 'Arn'] },
      maxReceiveCount: INBOUND_MAX_RECEIVE_COUNT,
    });
    const inbound = resources[logicalId(dev.events.inbound)]!;
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * inbound.Properties.Timeout);
    expect(inbound.Properties.Environment.Variables).toMatchObject({ LTS_INBOUND_IDENTITY: expect.any(String), LTS_BASE_URL: expect.anything() });
  });

  it('encrypts every queue and refuses plain HTTP to it', () => {
    const queues = ofType('AWS::SQS::Queue');
    expect(queues).toHaveLength(3);
    for (const [id, queue] of queues) expect(queue.Properties.SqsManagedSseEnabled, id).toBe(true);
    expect(ofType('AWS::SQS::QueuePolicy')).toHaveLength(3);
  });
});

describe('the sweeper of abandoned large writes', () => {
  it('is invoked every minute, and may wait that minute for a write about to expire', () => {
    const [, rule] = ofType('AWS::Events::Rule').find(([id]) => id === logicalId(dev.sweeper.schedule))!;
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(dev.sweeper.fn), 'Arn'] } })]);
    const sweeper = resources[logicalId(dev.sweeper.fn)]!;
    expect(sweeper.Properties.Timeout * 1000).toBeGreaterThan(SWEEP_SCHEDULE_MS);
  });
});

describe('alarms', () => {
  const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const metricsOf = (alarm: Record<string, any>) => (alarm.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
  const dimensionRef = (metric: any) => metric.Dimensions?.[0]?.Value?.Ref;

  it('notify the topic, every one', () => {
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: logicalId(dev.alarms.topic) }]);
  });

  it('watch the API 5xx rate', () => {
    const api5xx = alarms.find((a) => metricsOf(a).some((m: any) => m.MetricName === '5xx'));
    expect(api5xx?.Metrics.find((m: any) => m.Expression)?.Expression).toMatch(/100 \* errors \/ requests/);
  });

  it("watch every function's errors and throttles", () => {
    const watched = (metricName: string) =>
      alarms.flatMap((a) =>
        metricsOf(a)
          .filter((m: any) => m.MetricName === metricName)
          .map(dimensionRef),
      );
    const functions = ofType('AWS::Lambda::Function').map(([id]) => id);
    expect(watched('Errors').sort()).toEqual([...functions].sort());
    expect(watched('Throttles').sort()).toEqual([...functions].sort());
    // Ten functions an alarm: a CloudWatch alarm combines at most ten metrics.
    for (const alarm of alarms) expect(metricsOf(alarm).length).toBeLessThanOrEqual(10);
  });

  it("watch the publisher's iterator age and both dead-letter queues", () => {
    const single = alarms.filter((a) => a.MetricName);
    expect(single.find((a) => a.MetricName === 'IteratorAge')?.Dimensions[0].Value).toEqual({ Ref: logicalId(dev.events.publisher) });
    const queues = single.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible').map((a) => a.Dimensions[0].Value['Fn::GetAtt'][0]);
    expect(queues.sort()).toEqual([logicalId(dev.events.publisherDeadLetters), logicalId(dev.events.inboundDeadLetters)].sort());
    expect(single.find((a) => a.MetricName === 'FailedInvocations')?.Dimensions).toEqual([
      { Name: 'RuleName', Value: { Ref: logicalId(dev.events.deadLetterRule) } },
    ]);
  });
});
