import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './service-stack.ts';
import { stackName, stageSettings } from './stage.ts';

/**
 * The CDK app: `npx cdk synth` (stage dev), `-c stage=prod`, or `-c pipeline=true` for the deploy
 * pipeline that deploys both. cdk-nag's AWS Solutions checks run on every synth: a finding not
 * acknowledged in code (with its reason) stops it.
 */
const app = new App();
const stage = stageSettings(app.node.tryGetContext('stage'));
const keyless = app.node.tryGetContext('keyless');
new ServiceStack(app, stackName(stage.name), { stage, keyless: typeof keyless === 'string' ? keyless : undefined });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
