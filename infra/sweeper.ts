import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SWEEP_SCHEDULE_MS } from '#lib/store/recovery.ts';
import { eventEntries } from './bundling.ts';
import { ServiceFunction } from './function.ts';
import type { StageSettings } from './stage.ts';

export interface ServiceSweeperProps {
  stage: StageSettings;
  table: ITable;
  /** The engine's role (infra/api.ts): recovery makes the engine's calls, and only those. */
  role: IRole;
}

/** A run waits at most the schedule's minute for a write about to expire, then ends it: two minutes leave room for that. */
const SWEEPER_TIMEOUT = Duration.seconds(120);

/**
 * Recovery of writes larger than one transaction that a crash abandoned (lib/store/recovery.ts): a
 * function the schedule invokes every minute (functions/events/sweeper.ts), so such a write is ended at
 * most 60 s after it started (docs/decisions.md, "Writes past one transaction").
 */
export class ServiceSweeper extends Construct {
  readonly fn: IFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: ServiceSweeperProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Sweeper', {
      entry: eventEntries.sweeper,
      stage: props.stage,
      role: props.role,
      timeout: SWEEPER_TIMEOUT,
      memorySize: 512,
      description: 'Ends the large writes a crash abandoned (undone, or completed if they committed), every minute',
      environment: { LTS_TABLE_NAME: props.table.tableName, LOG_LEVEL: 'info' },
    }).fn;
    this.schedule = new Rule(this, 'Schedule', {
      description: 'Invokes the sweeper of abandoned large writes',
      schedule: Schedule.rate(Duration.millis(SWEEP_SCHEDULE_MS)),
      targets: [new LambdaFunction(this.fn, { retryAttempts: 0 })],
    });
  }
}
