/**
 * Errors the store raises. They say what happened in storage terms; the HTTP layer maps them to
 * JSON:API errors in one place (lib/http/handler.ts), so the store never knows HTTP.
 */

/** DynamoDB refused or could not serve the call for capacity or availability (throttling, timeouts, no connection): retry later. */
export class CapacityError extends Error {
  constructor(
    message: string,
    /** Seconds a client should wait before retrying. */
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = 'CapacityError';
  }
}
