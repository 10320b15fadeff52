import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { ServiceAlarms } from './alarms.ts';
import { ServiceApi } from './api.ts';
import { ServiceEvents } from './events.ts';
import { acknowledgeServiceFindings } from './nag.ts';
import { stackName, type StageSettings } from './stage.ts';
import { ServiceSweeper } from './sweeper.ts';
import { serviceTable } from './table.ts';

export interface ServiceStackProps extends StackProps {
  stage: StageSettings;
  /** LTS_KEYLESS of the API functions (`-c keyless=GET:labware`); empty by default. */
  keyless?: string;
}

/** One stage of the service, `Lts-<stage>`: the table, the API, events in and out, the sweeper of abandoned large writes, and the alarms. */
export class ServiceStack extends Stack {
  readonly table: Table;
  readonly api: ServiceApi;
  readonly events: ServiceEvents;
  readonly sweeper: ServiceSweeper;
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, { stackName: stackName(props.stage.name), description: `Laboratory Tracking Service (${props.stage.name})`, ...props });
    const { stage } = props;
    this.table = serviceTable(this, 'Table', stage);
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The DynamoDB table: LTS_TABLE_NAME of `npm run admin -- … --aws` (API keys, reference data)',
    });
    this.api = new ServiceApi(this, 'Api', { stage, table: this.table, keyless: props.keyless ?? '' });
    this.events = new ServiceEvents(this, 'Events', { stage, table: this.table, baseUrl: this.api.stage.url });
    this.sweeper = new ServiceSweeper(this, 'Sweeper', { stage, table: this.table, role: this.api.role });
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      api: this.api.api,
      functions: { ...this.api.functions, publisher: this.events.publisher, inbound: this.events.inbound, sweeper: this.sweeper.fn },
      publisher: this.events.publisher,
      deadLetterQueues: { PublisherDeadLetters: this.events.publisherDeadLetters, InboundDeadLetters: this.events.inboundDeadLetters },
      deadLetterRule: this.events.deadLetterRule,
    });
    acknowledgeServiceFindings(this, this.table);
  }
}
