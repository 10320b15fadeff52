import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEAD_LETTER_DETAIL_TYPE, DEAD_LETTER_SOURCE } from '#lib/events/dead-letters.ts';
import { eventEntries } from './bundling.ts';
import { ServiceFunction } from './function.ts';
import type { StageSettings } from './stage.ts';
import { ENGINE_ACCESS, grantTableAccess, PUBLISHER_ACCESS } from './table.ts';

export interface ServiceEventsProps {
  stage: StageSettings;
  table: ITable;
  /** Base of the links in the inbound messages' responses and events: the API's URL. */
  baseUrl: string;
}

/** The identity inbound messages act as (their events' `actor.api_key`); no API key may take this name. */
export const INBOUND_IDENTITY = 'inbound-queue';

const PUBLISHER_TIMEOUT = Duration.seconds(60);
const INBOUND_TIMEOUT = Duration.seconds(60);
/** How often a message is received before it goes to the inbound dead-letter queue. */
export const INBOUND_MAX_RECEIVE_COUNT = 5;

/**
 * Events out and messages in (contract §4). Out: the table's stream feeds the publisher, which reads
 * each committed write's request item (the outbox: lib/store/request-payload.ts) and puts its events on
 * the bus. In: lab integrations send write messages to the inbound queue, whose consumer runs them
 * through the engine's message entry. Each side has a dead-letter queue an alarm watches.
 */
export class ServiceEvents extends Construct {
  readonly bus: EventBus;
  readonly publisher: IFunction;
  readonly publisherDeadLetters: Queue;
  /** Routes the dead letters the publisher puts on the bus to its dead-letter queue. */
  readonly deadLetterRule: Rule;
  readonly inboundQueue: Queue;
  readonly inboundDeadLetters: Queue;
  readonly inbound: IFunction;

  constructor(scope: Construct, id: string, props: ServiceEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: `lts-${props.stage.name}` });

    this.publisher = new ServiceFunction(this, 'Publisher', {
      entry: eventEntries.publisher,
      stage: props.stage,
      timeout: PUBLISHER_TIMEOUT,
      memorySize: 512,
      description: 'Publishes the events of each committed write (the table stream) to EventBridge',
      environment: { LTS_TABLE_NAME: props.table.tableName, LTS_EVENT_BUS_NAME: this.bus.eventBusName, LOG_LEVEL: 'info' },
    }).fn;
    this.bus.grantPutEventsTo(this.publisher);
    // Large payloads are gzipped into chunk items the publisher reads from the table.
    grantTableAccess(props.table, this.publisher, PUBLISHER_ACCESS);
    this.publisherDeadLetters = secureQueue(this, 'PublisherDeadLetters', { retentionPeriod: Duration.days(14) });
    Validations.of(this.publisherDeadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter destination: the stream mapping sends it the batches it gave up on',
    });
    // A record the publisher cannot read, or an event the bus refuses for good, must not hold back the
    // records after it (Lambda's on-failure destination only takes a batch after its retries, holding the
    // shard meanwhile). The publisher puts such a dead letter on the bus, which it may already do, and this
    // rule delivers its detail to the same queue and alarm: no SQS client in the bundle, no new grant.
    this.deadLetterRule = new Rule(this, 'PublisherDeadLetterRule', {
      eventBus: this.bus,
      description: 'Dead letters of the event publisher (records it could not read, events the bus refused) to its dead-letter queue',
      eventPattern: { source: [DEAD_LETTER_SOURCE], detailType: [DEAD_LETTER_DETAIL_TYPE] },
      targets: [new SqsQueue(this.publisherDeadLetters, { message: RuleTargetInput.fromEventPath('$.detail') })],
    });
    this.publisher.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        // One batch at a time per shard keeps each shard's commit order on the bus.
        parallelizationFactor: 1,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        // The stream keeps records 24 h; past 6 h of failures a batch goes to the dead letters while its
        // request items are still in the table to publish again.
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(this.publisherDeadLetters),
        // Only a committed write's request item carries events; every other change is not the publisher's.
        filters: [
          FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { __edb_e__: { S: FilterRule.isEqual('request') } } } }),
        ],
      }),
    );

    this.inboundDeadLetters = secureQueue(this, 'InboundDeadLetters', { retentionPeriod: Duration.days(14) });
    this.inboundQueue = secureQueue(this, 'InboundQueue', {
      // AWS's advice: at least six times the consumer's timeout, so a message is not redelivered while a retried batch still runs.
      visibilityTimeout: Duration.seconds(INBOUND_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.inboundDeadLetters, maxReceiveCount: INBOUND_MAX_RECEIVE_COUNT },
    });
    this.inbound = new ServiceFunction(this, 'Inbound', {
      entry: eventEntries.inbound,
      stage: props.stage,
      timeout: INBOUND_TIMEOUT,
      memorySize: 1024,
      description: 'Runs the write messages of the inbound queue through the engine',
      environment: { LTS_TABLE_NAME: props.table.tableName, LTS_INBOUND_IDENTITY: INBOUND_IDENTITY, LTS_BASE_URL: props.baseUrl, LOG_LEVEL: 'info' },
    }).fn;
    grantTableAccess(props.table, this.inbound, ENGINE_ACCESS);
    this.inbound.addEventSource(new SqsEventSource(this.inboundQueue, { batchSize: 10, reportBatchItemFailures: true }));

    new CfnOutput(this, 'BusName', {
      value: this.bus.eventBusName,
      description: 'EventBridge bus of the domain events (source lts, detail-type = event type)',
    });
    new CfnOutput(this, 'InboundQueueUrl', {
      value: this.inboundQueue.queueUrl,
      description: 'SQS queue for inbound write messages {method, path, body, idempotency_key}',
    });
  }
}

/** A queue encrypted at rest (SQS-managed keys) that refuses requests not sent over TLS. */
function secureQueue(scope: Construct, id: string, props: ConstructorParameters<typeof Queue>[2]): Queue {
  return new Queue(scope, id, { ...props, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
}
