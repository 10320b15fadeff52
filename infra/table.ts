import { AttributeType, BillingMode, type ITable, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
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
      ...(index.projected === 'all'
        ? { projectionType: ProjectionType.ALL }
        : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projected] }),
    });
  }
  return table;
}

/** What a function may do to the table: IAM actions on the table itself, and on its secondary indexes. */
export interface TableAccess {
  table: readonly string[];
  indexes: readonly string[];
}

/**
 * The engine's functions (the routes, the inbound consumer): exactly the calls lib/store makes. Reads are
 * GetItem, BatchGetItem and Query (of the table and of its indexes); single-item writes are UpdateItem (id
 * sequences) and PutItem and DeleteItem (a large payload's chunk items); a transaction is authorized item by
 * item (IAM has no TransactWriteItems action): its Put, Update and Delete items. No ConditionCheckItem (no
 * transaction has a ConditionCheck item), Scan, BatchWriteItem, DescribeTable or stream reads: nothing calls them. test/artifact/functions.test.ts
 * records every call the deployed bundles make and holds the roles to them, both ways.
 */
export const ENGINE_ACCESS: TableAccess = {
  table: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  indexes: ['dynamodb:Query'],
};

/** The stream publisher reads the table only for a large payload's chunk items (a Query of the request item's partition). */
export const PUBLISHER_ACCESS: TableAccess = { table: ['dynamodb:Query'], indexes: [] };

/** Grants exactly `access` on the table and its indexes (CDK's grantReadData and grantReadWriteData grant more than any function calls). */
export function grantTableAccess(table: ITable, grantee: IGrantable, access: TableAccess): void {
  Grant.addToPrincipal({ grantee, actions: [...access.table], resourceArns: [table.tableArn] });
  if (access.indexes.length > 0) Grant.addToPrincipal({ grantee, actions: [...access.indexes], resourceArns: [`${table.tableArn}/index/*`] });
}
