import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PipelineStack, PLACEHOLDER_SOURCE } from './pipeline-stack.ts';
import { ServiceStack } from './service-stack.ts';
import { stackName, stageSettings } from './stage.ts';

/**
 * The CDK app. `npx cdk synth` builds the stack of one stage (`-c stage=dev|prod`, dev by default);
 * `-c pipeline=true` builds the deploy pipeline instead (`-c repository=owner/name -c branch=…
 * -c connectionArn=…`). cdk-nag's AWS Solutions checks run on every synth: a finding not acknowledged
 * in code, with its reason, stops it.
 */
const app = new App();
const context = (key: string): string | undefined => {
  const value = app.node.tryGetContext(key);
  return value === undefined ? undefined : String(value);
};

if (context('pipeline') === 'true') {
  new PipelineStack(app, 'Lts-pipeline', {
    source: {
      repository: context('repository') ?? PLACEHOLDER_SOURCE.repository,
      branch: context('branch') ?? PLACEHOLDER_SOURCE.branch,
      connectionArn: context('connectionArn') ?? PLACEHOLDER_SOURCE.connectionArn,
    },
  });
} else {
  const stage = stageSettings(context('stage'));
  new ServiceStack(app, stackName(stage.name), { stage, keyless: context('keyless') });
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
