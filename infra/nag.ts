import { type CfnElement, type Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CodePipeline } from 'aws-cdk-lib/pipelines';
import type { IConstruct } from 'constructs';

/**
 * The cdk-nag (AWS Solutions) findings the service stack accepts, each with its reason. Findings that
 * belong to one construct are acknowledged where it is built (api.ts, events.ts, alarms.ts); these
 * recur across the stack's functions.
 */
export function acknowledgeServiceFindings(stack: Stack, table: Table): void {
  const tableArn = `<${logicalId(table)}.Arn>`;
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

/** The logical id of a construct's CloudFormation resource, as cdk-nag names it in a finding. */
function logicalId(construct: IConstruct): string {
  const resource = construct.node.defaultChild as CfnElement;
  return resource.stack.getLogicalId(resource);
}

/**
 * The cdk-nag findings of the deploy pipeline: CDK Pipelines builds its artifact bucket, build projects
 * and their roles itself. Acknowledged on the pipeline construct only, so they never cover the service
 * stacks of its stages.
 */
export function acknowledgePipelineFindings(pipeline: CodePipeline): void {
  const bucket = `<${logicalId(pipeline.pipeline.artifactBucket)}.Arn>`;
  const builds = [logicalId(pipeline.synthProject), logicalId(pipeline.selfMutationProject)];
  const bucketGrant = 'CDK Pipelines grants its roles read/write on its own artifact bucket (S3 wildcard actions on that bucket only)';
  const buildLogs = 'A CodeBuild project writes its own log group and report groups, whose names it makes up at run time';
  Validations.of(pipeline).acknowledge(
    { id: 'AwsSolutions-S1', reason: 'The artifact bucket holds only build artifacts the pipeline itself writes and reads; its access is in CloudTrail' },
    {
      id: 'AwsSolutions-CB4',
      reason:
        'Build artifacts are encrypted at rest by the artifact bucket (S3-managed keys); a customer-managed KMS key adds cost without a reader to protect from',
    },
    ...['GetObject*', 'GetBucket*', 'List*', 'DeleteObject*', 'Abort*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::s3:${action}]`,
      reason: bucketGrant,
    })),
    { id: `AwsSolutions-IAM5[Resource::${bucket}/*]`, reason: bucketGrant },
    ...builds.flatMap((build) => [
      { id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/codebuild/<${build}>:*]`, reason: buildLogs },
      { id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:<AWS::Region>:<AWS::AccountId>:report-group/<${build}>-*]`, reason: buildLogs },
    ]),
    { id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/codebuild/*]', reason: buildLogs },
    { id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:<AWS::Region>:<AWS::AccountId>:report-group/*]', reason: buildLogs },
    {
      id: 'AwsSolutions-IAM5[Resource::arn:*:iam::<AWS::AccountId>:role/*]',
      reason: 'The self-update and asset steps assume the CDK bootstrap roles (cdk-*-deploy-role, …), whose names depend on the bootstrap qualifier',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CDK Pipelines grants these on *: the self-update step describes CloudFormation stacks and lists S3 buckets, the asset step starts and follows its CodeBuild builds',
    },
  );
}
