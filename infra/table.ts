import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '#lib/store/table.ts';
import type { StageSettings } from './stage.ts';

/**
 * The service's one DynamoDB table, built from the same definition as the entities and the local table
 * (keys, indexes, TTL and stream cannot drift). On-demand, point-in-time recovery; the stage decides
 * whether it may be deleted with the stack. No physical name, so several stages can share an account.
 */
export function serviceTable(scope: Construct, id: string, stage: StageSettings): Table {
  const table = new Table(scope, id, {
    partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
    sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    stream: StreamViewType[tableDefinition.stream],
    removalPolicy: stage.removalPolicy,
    deletionProtection: stage.deletionProtection,
  });
  for (const index of tableDefinition.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: [...index.projected],
    });
  }
  return table;
}
