import { errors, JsonApiError } from '#lib/jsonapi/errors.ts';
import { asCapacityError, ConflictError, TooLargeError, UniqueValueTaken, WriteOutcomeUnknown } from '#lib/store/errors.ts';

/**
 * The one place the store's errors (lib/store/errors.ts) become JSON:API errors, for HTTP and messages
 * alike: a unique value taken is a 422 at the field that gave it; a conflict that outlived the engine's
 * retries a 409; a write past the bound of one request (or a record past an item's size) a 422; a write whose transaction got no answer a 503 saying it
 * may have been applied; any other capacity fault (DynamoDB throttled, timed out or
 * unreachable, raised by the store or straight from the SDK) a 503 with Retry-After. Undefined for
 * anything else, which is a fault of this service.
 */
export function storeErrorToJsonApi(error: unknown): JsonApiError | undefined {
  if (error instanceof UniqueValueTaken) return JsonApiError.all(error.taken.map((t) => errors.notUnique(t.pointer, t.field, t.value)));
  if (error instanceof ConflictError) return errors.concurrentUpdate();
  if (error instanceof TooLargeError) return errors.tooLarge('/data', error.message);
  if (error instanceof WriteOutcomeUnknown) return errors.writeOutcomeUnknown(error.retryAfterSeconds);
  const capacity = asCapacityError(error);
  return capacity && errors.serviceUnavailable(capacity.retryAfterSeconds);
}
