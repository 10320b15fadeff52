import { Stack } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { expect, it } from 'vitest';
import { PipelineStack, PLACEHOLDER_SOURCE } from '../../infra/pipeline-stack.ts';
import { appWithoutBundling, serviceStack } from '../support/cdk-app.ts';

/**
 * cdk-nag 3 reports through CDK's policy validation (`Validations`), not annotations: a pack's
 * `validateScope` returns the findings no `Validations.of(…).acknowledge` covers, errors and warnings alike.
 */
const findings = (stack: Stack) =>
  new AwsSolutionsChecks()
    .validateScope(stack)
    .violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);

it.each(['dev', 'prod'] as const)('leaves no AWS Solutions finding unacknowledged in the %s stack', (stage) => {
  expect(findings(serviceStack(stage))).toEqual([]);
});

it('leaves no AWS Solutions finding unacknowledged in the pipeline stack (its stages included)', () => {
  expect(findings(new PipelineStack(appWithoutBundling(), 'Lts-pipeline', { source: PLACEHOLDER_SOURCE }))).toEqual([]);
});

it('finds what it should: a bare queue is reported', () => {
  const stack = new Stack();
  new Queue(stack, 'Bare');
  expect(findings(stack).some((f) => /AwsSolutions-SQS[34]/.test(f))).toBe(true);
});
