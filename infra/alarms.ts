import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IRule } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ServiceAlarmsProps {
  api: HttpApi;
  /** Every function of the stack, by name. */
  functions: Record<string, IFunction>;
  publisher: IFunction;
  deadLetterQueues: Record<string, IQueue>;
  /** The rule that takes the publisher's dead letters from the bus to its queue. */
  deadLetterRule: IRule;
}

/** Alarm thresholds (docs/decisions.md, "AWS deployment"). */
export const THRESHOLDS = {
  /** Percentage of API responses that are 5xx, over 5 minutes, when at least MIN_REQUESTS were served. */
  api5xxPercent: 5,
  minRequests: 20,
  /** Age of the oldest stream record the publisher has not published. */
  iteratorAge: Duration.minutes(5),
} as const;

/** CloudWatch alarms can combine at most 10 metrics. */
const METRICS_PER_ALARM = 10;
const PERIOD = Duration.minutes(5);

/**
 * What someone must look at: the API answering 5xx, functions failing or throttled, events falling
 * behind, messages given up on. Every alarm notifies the topic (subscribe to it after deploying).
 * Functions' errors and throttles are summed with metric math, ten functions an alarm, so 40 functions
 * make 8 alarms rather than 80.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'Laboratory Tracking Service alarms', enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed key, and alarm notifications carry no data worth a customer-managed key',
    });
    this.action = new SnsAction(this.topic);

    const requests = props.api.metricCount({ period: PERIOD, statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period: PERIOD, statistic: 'Sum' });
    this.add('Api5xx', 'More than 5% of API responses were 5xx over 5 minutes', {
      metric: new MathExpression({
        expression: `IF(requests >= ${THRESHOLDS.minRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors: serverErrors },
        period: PERIOD,
        label: 'API 5xx %',
      }),
      threshold: THRESHOLDS.api5xxPercent,
    });

    const names = Object.keys(props.functions);
    for (let start = 0; start < names.length; start += METRICS_PER_ALARM) {
      const group = names.slice(start, start + METRICS_PER_ALARM);
      const n = start / METRICS_PER_ALARM + 1;
      for (const metricName of ['Errors', 'Throttles'] as const) {
        this.add(`Lambda${metricName}${n}`, `${metricName} of functions ${group.join(', ')}`, {
          metric: sum(
            metricName,
            group.map((name) => props.functions[name]!.metric(metricName, { period: PERIOD, statistic: 'Sum' })),
          ),
          threshold: 0,
        });
      }
    }

    this.add('PublisherIteratorAge', 'Events are published more than 5 minutes after their write', {
      metric: props.publisher.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' }),
      threshold: THRESHOLDS.iteratorAge.toMilliseconds(),
    });

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(`${name}Depth`, `Messages in ${name}: something was given up on`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        threshold: 0,
      });
    }

    // A dead letter the rule could not deliver to the queue would be seen by nobody: alarm on that too.
    this.add('PublisherDeadLetterRuleFailures', 'Dead letters of the publisher could not be delivered to their queue', {
      metric: new Metric({
        namespace: 'AWS/Events',
        metricName: 'FailedInvocations',
        dimensionsMap: { RuleName: props.deadLetterRule.ruleName },
        period: PERIOD,
        statistic: 'Sum',
      }),
      threshold: 0,
    });

    new CfnOutput(this, 'TopicArn', { value: this.topic.topicArn, description: 'SNS topic every alarm notifies: subscribe to it' });
  }

  /** An alarm on one 5-minute period above the threshold; no data (no traffic) is fine. */
  private add(id: string, description: string, { metric, threshold }: { metric: IMetric; threshold: number }): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      alarmDescription: description,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
  }
}

/** The sum of several metrics as one metric-math expression. */
function sum(label: string, metrics: IMetric[]): MathExpression {
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric]));
  return new MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, period: PERIOD, label });
}
