import { resolve } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { assetCommands, type BundleAssets, bundling } from './bundling.ts';
import type { StageSettings } from './stage.ts';

/** The repository root: entries, package-lock.json and node_modules are resolved from it. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

export interface ServiceFunctionProps {
  /** Entry file relative to the repository root (`functions/<name>.ts`). */
  entry: string;
  stage: StageSettings;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize: number;
  description: string;
  /** A role shared with other functions; by default the function gets its own. */
  role?: IRole;
  /** Files copied beside the bundle (infra/bundling.ts, bundleAssets). */
  assets?: BundleAssets;
}

/**
 * One Lambda function of the service: Node.js 22 on ARM64, bundled by esbuild as `bundling` says (its
 * source map beside the bundle, read only when an unexpected error's stack is logged: lib/stack-trace.ts;
 * `--enable-source-maps` would parse it at every cold start), X-Ray tracing, and its own log group with the
 * stage's retention (a log group the stack owns goes with the stack, instead of outliving it).
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.stage.logRetention, removalPolicy: props.stage.removalPolicy });
    this.fn = new NodejsFunction(this, 'Function', {
      entry: resolve(PROJECT_ROOT, props.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup,
      description: props.description,
      role: props.role,
      environment: props.environment,
      bundling: {
        target: bundling.target,
        minify: bundling.minify,
        sourceMap: bundling.sourceMap,
        format: bundling.format as OutputFormat,
        externalModules: [...bundling.externalModules],
        mainFields: [...bundling.mainFields],
        // `--alias:<module>=<path>` for each (CDK writes a list's items as `<key>:<item>`).
        esbuildArgs: { '--alias': Object.entries(bundling.alias).map(([from, to]) => `${from}=${to}`) },
        ...(props.assets
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => assetCommands(props.assets, inputDir, outputDir),
              },
            }
          : {}),
      },
    });
  }
}
