import type { SynthesizedStack } from './cloudformation.ts';
import type { RecordedCall } from './deployed-functions.ts';

/** One request IAM authorizes: an action on a resource's ARN. */
export interface IamRequest {
  action: string;
  resource: string;
}

/** A statement of a role's policies, its resources resolved as deployed. */
export interface Statement {
  effect: string;
  actions: string[];
  resources: string[];
  condition?: unknown;
}

/** IAM has no action for a transaction: each of its items is authorized as the single-item write or read it is. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** The IAM requests one recorded call makes, on the stand-in deployment's ARNs. */
export function iamRequests(stack: SynthesizedStack, call: RecordedCall): IamRequest[] {
  const { service, operation, input } = call;
  if (service === 'events') {
    const buses = new Set<string>(input.Entries.map((entry: { EventBusName?: string }) => entry.EventBusName ?? 'default'));
    return [...buses].map((bus) => ({ action: `events:${operation}`, resource: stack.busArn(bus) }));
  }
  if (service !== 'dynamodb') return [{ action: `${service}:${operation}`, resource: '*' }];
  const on = (action: string, table: string, index?: string): IamRequest => ({
    action: `dynamodb:${action}`,
    resource: `${stack.tableArn(table)}${index ? `/index/${index}` : ''}`,
  });
  switch (operation) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return input.TransactItems.flatMap((item: Record<string, { TableName: string }>) =>
        Object.entries(item).map(([kind, params]) => on(TRANSACT_ITEM_ACTIONS[kind] ?? kind, params.TableName)),
      );
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems).map((table) => on(operation, table));
    default:
      return [on(operation, input.TableName, input.IndexName)];
  }
}

const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
const matches = (pattern: string, value: string) => glob(pattern).test(value);
const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The statements of every policy attached to a role (its inline policies and the IAM::Policy resources naming it). */
export function roleStatements(stack: SynthesizedStack, roleLogicalId: string): Statement[] {
  const role = stack.resources[roleLogicalId]!;
  const documents = [
    ...(role.Properties.Policies ?? []).map((p: { PolicyDocument: unknown }) => p.PolicyDocument),
    ...stack
      .ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleLogicalId))
      .map(([, p]) => p.Properties.PolicyDocument),
  ];
  return documents.flatMap((document: { Statement: any[] }) =>
    document.Statement.map((s) => ({
      effect: s.Effect,
      actions: asList<string>(s.Action),
      resources: asList<unknown>(s.Resource).flatMap((r) => stack.resolve(r) ?? []),
      ...(s.Condition ? { condition: s.Condition } : {}),
    })),
  );
}

/** Whether the statements allow a request: some Allow names its action and resource, and no Deny does (conditions are not evaluated: the roles have none). */
export function allows(statements: Statement[], request: IamRequest): boolean {
  const applies = (s: Statement) => s.actions.some((a) => matches(a, request.action)) && s.resources.some((r) => matches(r, request.resource));
  return statements.some((s) => s.effect === 'Allow' && applies(s)) && !statements.some((s) => s.effect === 'Deny' && applies(s));
}

/** The role a function runs as: the logical id its `Role` names. */
export const roleOf = (stack: SynthesizedStack, functionLogicalId: string): string => stack.resources[functionLogicalId]!.Properties.Role['Fn::GetAtt'][0];
