import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../../infra/service-stack.ts';
import { stackName, type StageName, stageSettings } from '../../infra/stage.ts';

/**
 * An app whose stacks skip bundling (CDK's `aws:cdk:bundling-stacks` context): the assertions look at
 * the templates, not at the code, and bundling 40 functions would take a minute.
 */
export const appWithoutBundling = (context: Record<string, unknown> = {}): App => new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });

/** The service stack of a stage, as `npx cdk synth -c stage=<stage>` builds it (bundling skipped). */
export const serviceStack = (stage: StageName): ServiceStack => new ServiceStack(appWithoutBundling(), stackName(stage), { stage: stageSettings(stage) });
