import { Stack, type StackProps, Stage, type StageProps } from 'aws-cdk-lib';
import { BuildSpec, LinuxBuildImage } from 'aws-cdk-lib/aws-codebuild';
import { PipelineType } from 'aws-cdk-lib/aws-codepipeline';
import { CodePipeline, CodePipelineSource, ManualApprovalStep, ShellStep } from 'aws-cdk-lib/pipelines';
import type { Construct } from 'constructs';
import { acknowledgePipelineFindings } from './nag.ts';
import { ServiceStack } from './service-stack.ts';
import { stackName, type StageSettings, stageSettings } from './stage.ts';

/** Where the pipeline takes the code from: a CodeStar (CodeConnections) connection to the repository. */
export interface PipelineSource {
  /** `owner/name` of the repository. */
  repository: string;
  branch: string;
  connectionArn: string;
}

/** Harmless stand-ins so that `npx cdk synth -c pipeline=true` works offline; deploying needs real ones. */
export const PLACEHOLDER_SOURCE: PipelineSource = {
  repository: 'your-org/laboratory-tracking-service',
  branch: 'main',
  connectionArn: 'arn:aws:codeconnections:eu-west-2:000000000000:connection/00000000-0000-0000-0000-000000000000',
};

/** The Node.js major the pipeline builds and tests with: the functions' runtime (infra/function.ts, nodejs22.x; esbuild target node22). */
export const BUILD_NODE_VERSION = '22';

/** One stage of the service as a pipeline stage: the same stack (and stack name) `npx cdk deploy Lts-<stage>` deploys. */
export class ServiceStage extends Stage {
  readonly stack: ServiceStack;

  constructor(scope: Construct, id: string, props: StageProps & { stage: StageSettings }) {
    super(scope, id, props);
    this.stack = new ServiceStack(this, stackName(props.stage.name), { stage: props.stage });
  }
}

/**
 * The deploy pipeline (CDK Pipelines): source → synth (`npm ci && npm test && npx cdk synth`, which also
 * updates the pipeline itself) → dev → a manual approval → prod.
 */
export class PipelineStack extends Stack {
  readonly pipeline: CodePipeline;

  constructor(scope: Construct, id: string, props: StackProps & { source: PipelineSource }) {
    super(scope, id, props);
    const { repository, branch, connectionArn } = props.source;
    this.pipeline = new CodePipeline(this, 'Pipeline', {
      pipelineType: PipelineType.V2,
      synth: new ShellStep('Synth', {
        input: CodePipelineSource.connection(repository, branch, { connectionArn }),
        // The synth passes the source on, so that the pipeline's self-update keeps it.
        commands: ['npm ci', 'npm test', `npx cdk synth -c pipeline=true -c repository=${repository} -c branch=${branch} -c connectionArn=${connectionArn}`],
      }),
      // npm test runs DynamoDB Local, which needs Java: the standard image has Corretto, and several Node.js
      // versions, of which every build (synth, self-update, assets) selects the functions' runtime's.
      codeBuildDefaults: {
        buildEnvironment: { buildImage: LinuxBuildImage.STANDARD_7_0 },
        partialBuildSpec: BuildSpec.fromObject({ phases: { install: { 'runtime-versions': { nodejs: BUILD_NODE_VERSION } } } }),
      },
      // One build publishes every function's asset, rather than a CodeBuild project per function.
      publishAssetsInParallel: false,
    });
    this.pipeline.addStage(new ServiceStage(this, 'Dev', { stage: stageSettings('dev') }));
    this.pipeline.addStage(new ServiceStage(this, 'Prod', { stage: stageSettings('prod') }), { pre: [new ManualApprovalStep('PromoteToProd')] });
    this.pipeline.buildPipeline();
    acknowledgePipelineFindings(this.pipeline);
  }
}
