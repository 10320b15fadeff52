/**
 * Errors the store raises. They say what happened in storage terms; lib/jsonapi/store-errors.ts maps them
 * to JSON:API errors in one place (for HTTP and messages alike), so the store never knows JSON:API.
 */

/** Another write changed a record this one read (its version condition failed): start again from fresh reads. */
export class ConflictError extends Error {
  constructor(message = 'transaction cancelled by a concurrent change') {
    super(message);
    this.name = 'ConflictError';
  }
}

/** A concurrent request with the same idempotency key committed first: its stored response is the answer. */
export class IdempotencyRace extends Error {
  constructor() {
    super('a request with the same idempotency key committed first');
    this.name = 'IdempotencyRace';
  }
}

/** Where the request gave a unique value, so that a taken one is reported there. */
export interface ValueOrigin {
  field: string;
  pointer: string;
}

/** Unique values (names, barcodes) another record holds already. */
export class UniqueValueTaken extends Error {
  constructor(readonly taken: readonly (ValueOrigin & { value: string })[]) {
    super(`unique values taken: ${taken.map((t) => `${t.field} ${JSON.stringify(t.value)}`).join(', ')}`);
    this.name = 'UniqueValueTaken';
  }
}

/** A write past the bound of one request (records and index entries, bytes: lib/domain/budgets.ts) or a record past an item's size; the message names the bound and the size. */
export class TooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TooLargeError';
  }
}

/** DynamoDB refused or could not serve the call for capacity or availability (throttling, timeouts, no connection): retry later. */
export class CapacityError extends Error {
  constructor(
    message: string,
    /** Seconds a client should wait before retrying. */
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CapacityError';
  }
}

/** Seconds to wait after DynamoDB throttled a call: its capacity recovers within about a second. */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
/** Seconds to wait after DynamoDB could not be reached or did not answer in time. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The request's deadline passed (lib/store/client.ts, withDeadline): its DynamoDB calls were cut off, or never made. */
export class DeadlineExceeded extends CapacityError {
  constructor(budgetMs: number, options?: { cause?: unknown }) {
    super(`the request's deadline (${budgetMs} ms) passed`, UNAVAILABLE_RETRY_AFTER_SECONDS, options);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * A write's transaction got no answer (a timeout, a lost connection, DynamoDB's own 5xx, the deadline): it
 * may have committed. Repeating the request under the same Idempotency-Key answers the first response if it
 * did, and applies the write once if it did not (docs/decisions.md, "Request deadlines").
 */
export class WriteOutcomeUnknown extends CapacityError {
  constructor(cause: unknown) {
    super('the write may or may not have been applied', UNAVAILABLE_RETRY_AFTER_SECONDS, { cause });
    this.name = 'WriteOutcomeUnknown';
  }
}

/** Error names DynamoDB (through the SDK) uses when it throttles a call. */
const THROTTLING_NAMES = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);
/** Cancellation reason codes of TransactWriteItems that mean "throttled", not "your condition failed". */
const THROTTLING_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
/** Error names of a call that got no answer in time (the SDK's request handler names its timeouts TimeoutError). */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
/** Node's codes for a connection that could not be made or was lost (DynamoDB stopped, restarted or unreachable). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Server-side errors DynamoDB documents as retryable; and TransactionInProgressException, its answer to the
 * SDK's retry of a transaction (same client request token) whose first attempt is still running: that one
 * may yet apply, so the call's outcome is unknown, as after a timeout.
 */
const UNAVAILABLE_NAMES = new Set(['InternalServerError', 'ServiceUnavailable', 'TransactionInProgressException']);

/** True when a cancellation reason code of a transaction says DynamoDB throttled it (retry later), not that a condition failed. */
export function capacityReason(code: string | undefined): boolean {
  return code !== undefined && THROTTLING_REASONS.has(code);
}

type Fault = 'throttled' | 'unavailable';

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
}

/** Classifies one error (not its causes). */
function faultOf(error: ErrorLike): Fault | undefined {
  const name = typeof error.name === 'string' ? error.name : '';
  const status = error.$metadata?.httpStatusCode;
  if (THROTTLING_NAMES.has(name) || status === 429) return 'throttled';
  if (name === 'TransactionCanceledException' && error.CancellationReasons?.some((r) => capacityReason(r.Code))) return 'throttled';
  if (TIMEOUT_NAMES.has(name) || UNAVAILABLE_NAMES.has(name)) return 'unavailable';
  if (typeof error.code === 'string' && CONNECTION_CODES.has(error.code)) return 'unavailable';
  if (status !== undefined && status >= 500) return 'unavailable';
  return undefined;
}

/**
 * What kind of capacity fault an error is (or the store's own CapacityError), looking through the errors that wrap it (ElectroDB wraps the
 * SDK's error as `cause`; a connection attempt to several addresses fails with an AggregateError).
 */
function classify(error: unknown, depth = 0): Fault | CapacityError | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) return undefined;
  if (error instanceof CapacityError) return error;
  const e = error as ErrorLike;
  const own = faultOf(e);
  if (own) return own;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const fault = classify(inner, depth + 1);
      if (fault) return fault;
    }
  }
  return classify(e.cause, depth + 1);
}

/**
 * True when an error means DynamoDB could not serve a call for capacity or availability — throttling
 * (`ThrottlingException`, `ProvisionedThroughputExceededException`, `RequestLimitExceeded`, a transaction
 * cancelled for `ThrottlingError`), a timeout, or a connection refused or reset — rather than a fault of
 * the request or of this service. Such a request may succeed if retried later (HTTP 503).
 */
export function isCapacityFault(error: unknown): boolean {
  return classify(error) !== undefined;
}

/** The error as a CapacityError (itself if it is one), or undefined when it is not a capacity fault. */
export function asCapacityError(error: unknown): CapacityError | undefined {
  const fault = classify(error);
  if (!fault || fault instanceof CapacityError) return fault;
  return fault === 'throttled'
    ? new CapacityError('DynamoDB throttled the request', THROTTLED_RETRY_AFTER_SECONDS, { cause: error })
    : new CapacityError('DynamoDB did not answer (timeout or no connection)', UNAVAILABLE_RETRY_AFTER_SECONDS, { cause: error });
}

/**
 * True when a failed call may nonetheless have been applied: DynamoDB gave no answer (a timeout, a lost
 * connection, its own 5xx, the request's deadline), rather than refusing the call (throttled, cancelled).
 */
export function mayHaveApplied(error: unknown): boolean {
  const fault = classify(error);
  return fault === 'unavailable' || fault instanceof DeadlineExceeded;
}
