import type { Ref } from '#lib/store/records.ts';

/**
 * What one GET may read beyond its primary records: the items of its includes (lib/jsonapi/include.ts) and
 * of the reverse relationships they resolve (lib/jsonapi/reverse.ts). An item is what DynamoDB returns: a
 * record item read by key (an embedded record — a well, an aliquot, a request in its book — costs its
 * holder's item, once) or an index entry a reverse relationship's Query reads (the record it names is
 * then an item of its own).
 *
 * 20,000 items. The time: on DynamoDB Local, Limber's plate page reads 777 items in ~270 ms (~2,900 items
 * a second: docs/measurements.md, "Measuring speed"), so
 * 20,000 are ~7 s of the request's 25 s budget (LTS_REQUEST_BUDGET_MS), leaving the rest for the listing,
 * rendering and a slow call; on DynamoDB, 50 rounds of four BatchGetItems of 100, well under a second.
 * What a response can carry: ~17,000 resources at most (lib/http/response-size.ts, RESPONSE_BODY_BYTES,
 * over the ~2.2 KB a resource of Limber's pages renders to), so a budget that ran out first would leave
 * a page shorter than its bytes allow only when most items read render nothing (a plate read for one
 * well). The memory: at the ~0.9 KB the plate page's items average, 18 MB held, of the function's 1 GB.
 */
export const READ_BUDGET_ITEMS = 20_000;

/** Reads planned against a budget, for the records they are made for (a reverse relationship reads an aggregate for the records in it). */
export interface ReadBudget {
  /** Whether reads for these records may still be made. */
  open(records: readonly Ref[]): boolean;
  /** Counts `items` read for these records; false when that took them past the budget (their reads are then left unused). */
  charge(records: readonly Ref[], items: number): boolean;
}

/** The budget of a lone resolution (a related link, a write's rule, an attribute): `items` in all, whatever they are read for. */
export function flatBudget(items = READ_BUDGET_ITEMS): ReadBudget {
  let left = items;
  return {
    open: () => left > 0,
    charge: (_, read) => {
      left -= read;
      return left >= 0;
    },
  };
}

/** Why a record's includes are refused when they alone would pass the budget (errors.includeTooLarge). */
export const pastReadBudget = (items = READ_BUDGET_ITEMS) => `would read more than the ${items} items one request may read`;
