import { type CfnElement, type Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';

/**
 * The cdk-nag (AWS Solutions) findings the service stack accepts, each with its reason. Findings that
 * belong to one construct are acknowledged where it is built (api.ts, events.ts, alarms.ts); these
 * recur across the stack's functions.
 */
export function acknowledgeServiceFindings(stack: Stack, table: Table): void {
  const tableArn = `<${stack.getLogicalId(table.node.defaultChild as CfnElement)}.Arn>`;
  Validations.of(stack).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS-managed basic execution role grants only CloudWatch Logs writes, which every function needs',
    },
    {
      id: `AwsSolutions-IAM5[Resource::${tableArn}/index/*]`,
      reason: 'The functions query every secondary index of the service’s one table (listings, lookups); the grant is limited to that table’s indexes',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray (xray:PutTraceSegments, xray:PutTelemetryRecords) and the stream mapping (dynamodb:ListStreams) accept no resource narrower than *',
    },
    {
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime the service is built and tested for (esbuild target node22); moving to a newer one is a deliberate upgrade',
    },
  );
}
