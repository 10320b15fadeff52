import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULT_REQUEST_BUDGET_MS } from '#lib/config.ts';
import { entryFile, FALLBACK, type Route, routes } from '#lib/routes.ts';
import { bundleAssets } from './bundling.ts';
import { ServiceFunction } from './function.ts';
import type { StageSettings } from './stage.ts';
import { ENGINE_ACCESS, grantTableAccess } from './table.ts';

/** How long a request may take before the function answers 503 itself (LTS_REQUEST_BUDGET_MS, lib/store/client.ts withDeadline). */
export const REQUEST_BUDGET = Duration.millis(DEFAULT_REQUEST_BUDGET_MS);
/**
 * The route functions' timeout: the request budget and 3 s to spare (to answer the 503 and log it), below
 * API Gateway's 29 s integration limit, so a client always gets the function's own answer.
 */
export const API_FUNCTION_TIMEOUT = Duration.seconds(REQUEST_BUDGET.toSeconds() + 3);

export interface ServiceApiProps {
  stage: StageSettings;
  table: ITable;
  /** Comma list of `METHOD:type` served without a key (LTS_KEYLESS); empty by default. */
  keyless: string;
}

/**
 * The HTTP API (payload format 2.0, which the handlers read): one Lambda function per route of
 * lib/routes.ts, each serving `ANY /api/v2/<type>` and `ANY /api/v2/<type>/{proxy+}` (and `ANY` of its pages), and the fallback
 * function on `$default`. `ANY` rather than each route's methods, so that methods, preflights and
 * actions are answered by the same middy chain as `npm start` (405 with `Allow`, OPTIONS without a key).
 * API keys are checked by that chain too (from the table): no usage plans, no authorizer.
 */
export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The route functions by route name. */
  readonly functions: Record<string, IFunction> = {};
  /** The engine's role, which the route functions share (and the sweeper: infra/sweeper.ts). */
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    // One role for all route functions: they need the same grants, and 38 roles and policies would be
    // 76 of the stack's 500 resources for nothing.
    const role = new Role(this, 'FunctionRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
    grantTableAccess(props.table, role, ENGINE_ACCESS);
    this.role = role;

    this.api = new HttpApi(this, 'Api', { createDefaultStage: false, description: `Laboratory Tracking Service (${props.stage.name})` });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.stage.logRetention, removalPolicy: props.stage.removalPolicy });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.stage.throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: AccessLogFormat.jsonWithStandardFields() },
    });

    for (const route of routes) {
      const fn = new ServiceFunction(this, `Route-${route.name}`, {
        entry: entryFile(route),
        stage: props.stage,
        role,
        assets: bundleAssets[route.name],
        timeout: API_FUNCTION_TIMEOUT,
        memorySize: 1024,
        description: route.name === FALLBACK ? 'Any path no route serves (JSON:API 401/404), the docs page' : `/api/v2/${route.name}`,
        environment: {
          LTS_TABLE_NAME: props.table.tableName,
          LTS_KEYLESS: props.keyless,
          LTS_REQUEST_BUDGET_MS: String(REQUEST_BUDGET.toMilliseconds()),
          LOG_LEVEL: 'info',
        },
      }).fn;
      this.functions[route.name] = fn;
      this.addRoutes(route, fn);
    }

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason: 'API keys (X-Sequencescape-Client-Id) are checked by the functions themselves, from the table, exactly as npm start does',
      },
      { id: 'AwsSolutions-COG4', reason: 'Clients authenticate with the service’s own API keys, not Cognito users' },
    );
    new CfnOutput(this, 'Url', { value: this.stage.url, description: 'Base URL of the API: requests go to <url>api/v2/<type>' });
  }

  /**
   * The routes of one function: its type's paths and its pages (GET, and POST for the key form), or `$default` for the fallback.
   * The function lets the whole API invoke it (one permission) rather than each route (one per route key): with
   * 75 functions and 144 routes, a permission per route put the stack past CloudFormation's 500 resources. The
   * API's own routes still decide what reaches which function.
   */
  private addRoutes(route: Route, fn: IFunction): void {
    const integration = new HttpLambdaIntegration(`${route.name}-Integration`, fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      scopePermissionToRoute: false,
    });
    const paths =
      route.name === FALLBACK
        ? [HttpRouteKey.DEFAULT]
        : [`/api/v2/${route.name}`, `/api/v2/${route.name}/{proxy+}`, ...route.pages].map((path) => HttpRouteKey.with(path, HttpMethod.ANY));
    paths.forEach((routeKey, n) => {
      new HttpRoute(this, `${route.name}-${n}`, { httpApi: this.api, routeKey, integration });
    });
  }
}
