import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { expect, it } from 'vitest';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { bundling } from '../../infra/bundling.ts';
import { BUILD_NODE_VERSION, PipelineStack, PLACEHOLDER_SOURCE } from '../../infra/pipeline-stack.ts';
import { appWithoutBundling } from '../support/cdk-app.ts';

const app = appWithoutBundling();
const stack = new PipelineStack(app, 'Lts-pipeline', { source: { ...PLACEHOLDER_SOURCE, repository: 'lab/lts', branch: 'release' } });
const template = Template.fromStack(stack);
const [pipeline] = Object.values(template.findResources('AWS::CodePipeline::Pipeline')) as { Properties: { Stages: { Name: string; Actions: any[] }[] } }[];
const stages = pipeline!.Properties.Stages;

it('takes the source from the connection, synthesizes, updates itself, publishes assets, then deploys dev and prod', () => {
  expect(stages.map((s) => s.Name)).toEqual(['Source', 'Build', 'UpdatePipeline', 'Assets', 'Dev', 'Prod']);
  expect(stages[0]!.Actions[0].Configuration).toMatchObject({
    FullRepositoryId: 'lab/lts',
    BranchName: 'release',
    ConnectionArn: PLACEHOLDER_SOURCE.connectionArn,
  });
});

it('asks for a manual approval before prod, and deploys each stage as the stack a deploy by hand would (Lts-<stage>)', () => {
  const prod = stages.find((s) => s.Name === 'Prod')!;
  expect(prod.Actions.find((a) => a.ActionTypeId.Category === 'Approval')?.Name).toBe('PromoteToProd');
  const approval = prod.Actions.find((a) => a.ActionTypeId.Category === 'Approval')!.RunOrder;
  for (const name of ['Dev', 'Prod']) {
    const deploys = stages.find((s) => s.Name === name)!.Actions.filter((a) => a.ActionTypeId.Category === 'Deploy');
    expect(deploys.length, name).toBeGreaterThan(0);
    for (const deploy of deploys) expect(deploy.Configuration.StackName, name).toBe(`Lts-${name.toLowerCase()}`);
    if (name === 'Prod') for (const deploy of deploys) expect(deploy.RunOrder).toBeGreaterThan(approval);
  }
  expect(stages.find((s) => s.Name === 'Dev')!.Actions.some((a) => a.ActionTypeId.Category === 'Approval')).toBe(false);
});

it('tests before it synthesizes, and keeps its source when it updates itself', () => {
  const [synth] = Object.values(template.findResources('AWS::CodeBuild::Project')).filter((p: any) =>
    p.Properties.Source.BuildSpec.includes('npm test'),
  ) as any[];
  const commands = JSON.parse(synth.Properties.Source.BuildSpec).phases.build.commands as string[];
  expect(commands).toEqual([
    'npm ci',
    'npm test',
    `npx cdk synth -c pipeline=true -c repository=lab/lts -c branch=release -c connectionArn=${PLACEHOLDER_SOURCE.connectionArn}`,
  ]);
});

it('builds, tests, updates itself and publishes assets on the functions’ Node.js (22), not whatever the image defaults to', () => {
  const projects = Object.values(template.findResources('AWS::CodeBuild::Project')) as any[];
  expect(projects.length).toBeGreaterThanOrEqual(3);
  for (const project of projects) {
    // A long buildspec (the asset step's) is a file of the cloud assembly rather than inline.
    const source: string = project.Properties.Source.BuildSpec;
    const spec = source.startsWith('buildspec-') ? JSON.parse(readFileSync(join(app.outdir, source), 'utf8')) : JSON.parse(source);
    expect(spec.phases.install['runtime-versions'], project.Properties.Description).toEqual({ nodejs: BUILD_NODE_VERSION });
  }
  // The same major as the functions' runtime (infra/function.ts) and the bundles' target (infra/bundling.ts).
  expect(`nodejs${BUILD_NODE_VERSION}.x`).toBe(Runtime.NODEJS_22_X.name);
  expect(bundling.target).toBe(`node${BUILD_NODE_VERSION}`);
});
