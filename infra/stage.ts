import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** The stages the app deploys; each is one stack, `Lts-<stage>`. */
export const STAGE_NAMES = ['dev', 'prod'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** What differs between stages: how much data is protected, and how much traffic the API admits. */
export interface StageSettings {
  name: StageName;
  /** The table's (and log groups') fate when the stack or resource goes. */
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
  /** API Gateway stage throttling: steady requests per second, and the burst above it. */
  throttle: { rateLimit: number; burstLimit: number };
  logRetention: RetentionDays;
}

const settings: Record<StageName, StageSettings> = {
  // dev can be torn down with its data: it holds nothing that cannot be loaded again.
  dev: {
    name: 'dev',
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    throttle: { rateLimit: 50, burstLimit: 100 },
    logRetention: RetentionDays.ONE_WEEK,
  },
  prod: {
    name: 'prod',
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    throttle: { rateLimit: 500, burstLimit: 1000 },
    logRetention: RetentionDays.ONE_MONTH,
  },
};

/** The settings of a stage named on the command line (`-c stage=…`); `dev` when none is given. */
export function stageSettings(name: unknown = 'dev'): StageSettings {
  if (typeof name !== 'string' || !(STAGE_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown stage ${JSON.stringify(name)}: use one of ${STAGE_NAMES.join(', ')}`);
  }
  return settings[name as StageName];
}

/** Stack name of a stage, the same whether deployed by hand or by the pipeline. */
export const stackName = (stage: StageName): string => `Lts-${stage}`;
