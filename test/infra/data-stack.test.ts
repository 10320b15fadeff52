import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect, it } from 'vitest';
import { DataStack } from '../../infra/data-stack.ts';
import { tableDefinition } from '#lib/store/table.ts';

const template = Template.fromStack(new DataStack(new App(), 'Test'));

it('builds the table from the shared definition', () => {
  template.resourceCountIs('AWS::DynamoDB::Table', 1);
  const [table] = Object.values(template.findResources('AWS::DynamoDB::Table')) as { Properties: Record<string, any>; DeletionPolicy: string }[];
  expect(table!.Properties.KeySchema).toEqual([
    { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
    { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
  ]);
  expect(
    table!.Properties.GlobalSecondaryIndexes.map((i: any) => [
      i.IndexName,
      i.KeySchema[0].AttributeName,
      i.KeySchema[1].AttributeName,
      i.Projection.NonKeyAttributes,
    ]),
  ).toEqual(tableDefinition.indexes.map((i) => [i.name, i.partitionKey, i.sortKey, [...i.projected]]));
  expect(table!.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
  expect(table!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
});

it('keeps the data safe: on-demand, point-in-time recovery, retained, no physical name', () => {
  template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  template.hasResourceProperties('AWS::DynamoDB::Table', {
    BillingMode: 'PAY_PER_REQUEST',
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  });
  const [table] = Object.values(template.findResources('AWS::DynamoDB::Table')) as { Properties: Record<string, unknown> }[];
  expect(table!.Properties.TableName).toBeUndefined();
});
