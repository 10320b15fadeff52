import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { ServiceStack } from '../../infra/service-stack.ts';

/** A resource of a synthesized template. */
export interface CfnResource {
  Type: string;
  Properties: Record<string, any>;
}

/** The account and API id the tier stands in for (any values do: nothing reaches AWS). */
export const ACCOUNT = '123456789012';
export const API_ID = 'ltsartifact';

/**
 * A synthesized service stack, read as CloudFormation would resolve it for one deployment: `Ref` and
 * `Fn::GetAtt` of the resources the functions are told of (the table, the bus, the API) become the values
 * of a stand-in deployment, whose table is a DynamoDB Local table of the test's.
 */
export class SynthesizedStack {
  readonly resources: Record<string, CfnResource>;
  readonly region: string;

  constructor(
    readonly stack: ServiceStack,
    readonly tableName: string,
  ) {
    this.resources = Template.fromStack(stack).toJSON().Resources;
    this.region = 'eu-west-2';
  }

  logicalId(construct: { node: { defaultChild?: unknown } }): string {
    return this.stack.getLogicalId(construct.node.defaultChild as CfnElement);
  }

  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  tableArn(name = this.tableName): string {
    return `arn:aws:dynamodb:${this.region}:${ACCOUNT}:table/${name}`;
  }

  busArn(name: string): string {
    return `arn:aws:events:${this.region}:${ACCOUNT}:event-bus/${name}`;
  }

  /** What `Ref` of a resource gives; undefined for one the stand-in deployment has no value for. */
  private ref(id: string): string | undefined {
    const pseudo: Record<string, string> = {
      'AWS::Region': this.region,
      'AWS::AccountId': ACCOUNT,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (id in pseudo) return pseudo[id];
    const resource = this.resources[id];
    if (resource?.Type === 'AWS::DynamoDB::Table') return this.tableName;
    if (resource?.Type === 'AWS::Events::EventBus') return resource.Properties.Name;
    if (resource?.Type === 'AWS::ApiGatewayV2::Api') return API_ID;
    return undefined;
  }

  private getAtt(id: string, attribute: string): string | undefined {
    const type = this.resources[id]?.Type;
    if (type === 'AWS::DynamoDB::Table' && attribute === 'Arn') return this.tableArn();
    if (type === 'AWS::DynamoDB::Table' && attribute === 'StreamArn') return `${this.tableArn()}/stream/latest`;
    if (type === 'AWS::Events::EventBus' && attribute === 'Arn') return this.busArn(this.resources[id]!.Properties.Name);
    return undefined;
  }

  /**
   * A template value as deployed. Where the stand-in has no value (a queue's ARN, say) it is
   * `unresolved:<what>`, which no call of a function names, or, with `strict`, an error.
   */
  resolve(value: unknown, strict = false): string | undefined {
    if (typeof value === 'string') return value;
    const v = value as Record<string, any>;
    let resolved: string | undefined;
    let what: string;
    if (v.Ref !== undefined) {
      if (v.Ref === 'AWS::NoValue') return undefined;
      resolved = this.ref(v.Ref);
      what = `Ref ${v.Ref}`;
    } else if (v['Fn::GetAtt'] !== undefined) {
      resolved = this.getAtt(v['Fn::GetAtt'][0], v['Fn::GetAtt'][1]);
      what = `GetAtt ${v['Fn::GetAtt'].join('.')}`;
    } else if (v['Fn::Join'] !== undefined) {
      const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
      const each = parts.map((part) => this.resolve(part, strict));
      if (each.some((part) => part?.startsWith('unresolved:'))) resolved = undefined;
      else resolved = each.join(separator);
      what = `Join ${JSON.stringify(parts)}`;
    } else {
      what = JSON.stringify(value);
    }
    if (resolved !== undefined) return resolved;
    if (strict) throw new Error(`the stand-in deployment has no value for ${what}`);
    return `unresolved:${what}`;
  }
}
