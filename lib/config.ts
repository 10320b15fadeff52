import * as z from '#lib/zod.ts';

const timeoutMs = () => z.coerce.number().check(z.int(), z.gte(100), z.lte(60_000));

/**
 * How long one request may take before it answers 503 (lib/store/client.ts, withDeadline): below API
 * Gateway's 29 s, with the route functions' Lambda timeout above it (infra/api.ts) so the function answers.
 */
export const DEFAULT_REQUEST_BUDGET_MS = 25_000;

/**
 * Environment of every process (Lambda, local server, admin CLI), parsed once and failing fast. Built on
 * the first call, like every schema of the service (docs/decisions.md, "Cold starts").
 */
const schema = () =>
  z.object({
    LTS_TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'lts'),
    /** Set locally (DynamoDB Local); absent on AWS, where the SDK's defaults apply. */
    LTS_DYNAMODB_ENDPOINT: z.optional(z.url()),
    AWS_REGION: z._default(z.string().check(z.minLength(1)), 'eu-west-2'),
    /** Comma list of METHOD:type pairs served without an API key (contract §1.2). */
    LTS_KEYLESS: z._default(z.string(), ''),
    /** Absolute http(s) base URL for links when the Host header should not be trusted (e.g. behind a proxy). */
    LTS_BASE_URL: z.optional(
      z.url({ protocol: /^https?$/ }).check(
        z.refine((v) => {
          const url = new URL(v);
          return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
        }, 'must be an http(s) URL without credentials, query or fragment'),
      ),
    ),
    /** How long connecting to DynamoDB, and one DynamoDB call, may take (lib/store/client.ts: 1 s and 3 s on AWS, 5 s and 10 s against DynamoDB Local). */
    LTS_DYNAMODB_CONNECT_TIMEOUT_MS: z.optional(timeoutMs()),
    LTS_DYNAMODB_REQUEST_TIMEOUT_MS: z.optional(timeoutMs()),
    /** How long one request may take before it answers 503 `service_unavailable` (DEFAULT_REQUEST_BUDGET_MS); at most 15 minutes, Lambda's limit. */
    LTS_REQUEST_BUDGET_MS: z._default(z.coerce.number().check(z.int(), z.gte(100), z.lte(900_000)), DEFAULT_REQUEST_BUDGET_MS),
    /**
     * How long after it starts a write larger than one transaction may be abandoned, aborted and undone by
     * recovery (lib/store/large-write.ts); by default its request's deadline plus 5 s. Tests of recovery set it short.
     */
    LTS_LARGE_WRITE_EXPIRY_MS: z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(900_000))),
    /** The EventBridge bus the stream publisher sends events to (functions/events/publisher.ts; AWS only). */
    LTS_EVENT_BUS_NAME: z.optional(z.string().check(z.minLength(1))),
    /** The name inbound queue messages act as, in place of an API key's (functions/events/inbound.ts). */
    LTS_INBOUND_IDENTITY: z._default(z.string().check(z.minLength(1)), 'inbound-queue'),
    LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  });

export type Config = z.infer<ReturnType<typeof schema>>;

let cached: Config | undefined;

export function config(): Config {
  if (!cached) {
    const parsed = schema().safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`Invalid environment: ${problems}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** Tests and the local launcher change the environment after start-up; they call this to re-read it. */
export function resetConfig(): void {
  cached = undefined;
}
