import { LARGE_WRITE_ITEM_LIMIT, LARGE_WRITE_SIZE_LIMIT, withinRequest, writtenItems, type WriteShape } from '#lib/domain/budgets.ts';
import { REQUESTS_PER_BOOK } from '#lib/domain/labware-ids.ts';
import { ok, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { defineMachine, fire } from '#lib/domain/state-machine.ts';

/**
 * Submissions from templates (contract §6; the reference's Order, SubmissionTemplate, Submission and
 * Submission::FlexibleRequestGraph): an order names a template's request types, its assets (receptacles)
 * and its options; a submission of orders builds each order's requests, chained. Pure: which requests,
 * which orders may go together, which study an order is for, and what the write costs.
 */

/** A submission's states (the reference's Submission::StateMachine), read-only through the API. */
export const SUBMISSION_STATES = ['building', 'pending', 'processing', 'ready', 'failed', 'cancelled'] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

/**
 * The moves of the reference's machine that building a submission makes: `built` when the user submits it
 * (building → pending), then its SubmissionBuilderJob's `process` and `ready` once the requests exist. The
 * reference's `fail` and `cancel` have no trigger here (a build that cannot be made is refused whole).
 */
export const submissionMachine = defineMachine({
  subject: 'submission',
  states: SUBMISSION_STATES,
  initial: 'building',
  transitions: [
    { event: 'built', from: ['building'], to: 'pending' },
    { event: 'process', from: ['processing', 'failed', 'pending'], to: 'processing' },
    { event: 'ready', from: ['processing', 'failed'], to: 'ready' },
  ],
});

const BUILD_EVENTS = ['built', 'process', 'ready'] as const;

/**
 * The states a submission passes through as it is built from `from`, in order: building → pending →
 * processing → ready (contract §7.3). The reference passes them in a background job; here the requests are
 * made in the submission's own write, so it passes them all at once, each a change of its own.
 */
export function buildPassage(from: SubmissionState): Outcome<SubmissionState[]> {
  const passed: SubmissionState[] = [];
  let state = from;
  for (const event of BUILD_EVENTS) {
    const step = fire(submissionMachine, state, event);
    if (!step.ok) return refuse([{ code: 'not_allowed', input: ['and_submit'], detail: step.detail }]);
    state = step.state;
    passed.push(state);
  }
  return ok(passed);
}

/** A request type as an order's chain sees it. */
export interface ChainedType {
  id: number;
  key: string;
  forMultiplexing: boolean;
}

/** An order as its submission builds it: its request types in their order, each one's multiplier, its assets. */
export interface BuildingOrder<A> {
  id: number;
  requestTypes: readonly ChainedType[];
  /** How many requests of a type each asset gets (the reference's `request_options.multiplier`); 1 when not named. */
  multipliers: Readonly<Record<string, number>>;
  assets: readonly A[];
}

/** A request to make: its order, its type, its asset (null after a multiplexing step: the pool has no receptacle until it is made). */
export interface PlannedRequest<A> {
  order: number;
  requestType: number;
  asset: A | null;
}

/** The multiplier of a request type, named by its key or its id (the reference names ids). */
const multiplierOf = (order: Pick<BuildingOrder<unknown>, 'multipliers'>, type: ChainedType): number =>
  order.multipliers[type.key] ?? order.multipliers[String(type.id)] ?? 1;

/**
 * The requests of a submission's orders, in the order they are made (the reference's flexible request
 * graph, with request types that make no target asset here): each request type of an order gives each
 * of its current sources one request, `multiplier` times over; the sources of the next type are the same
 * receptacles (as many times over), so a library request and its sequencing request start from the same
 * well, one after the other in each's own sequence — how work completion pairs them
 * (lib/domain/work-completion.ts). A multiplexing type pools every source into one: the types after it get
 * one request each (no asset), and only once per submission — a later order stops after its multiplexing
 * requests, as the reference's do ("preplexed").
 */
export function planRequests<A>(orders: readonly BuildingOrder<A>[], maxRequests: number): Outcome<PlannedRequest<A>[]> {
  const planned: PlannedRequest<A>[] = [];
  let pooled = false;
  for (const order of orders) {
    let sources: readonly (A | null)[] = order.assets;
    for (const type of order.requestTypes) {
      const times = multiplierOf(order, type);
      // Counted before they are made: multipliers compound along a chain.
      if (planned.length + times * sources.length > maxRequests)
        return refuse([{ code: 'over_budget', input: [], detail: `these orders ask for more than ${maxRequests} requests, more than one request can write` }]);
      for (let n = 0; n < times; n++) for (const asset of sources) planned.push({ order: order.id, requestType: type.id, asset });
      if (type.forMultiplexing) {
        if (pooled) break;
        pooled = true;
        sources = [null];
      } else sources = Array.from({ length: times }, () => sources).flat();
    }
  }
  return ok(planned);
}

/** The most times a request type may be multiplied (`request_options.multiplier`). */
export const MAX_MULTIPLIER = 100;

/**
 * The problems of an order's multipliers: an object of whole numbers from 1 to MAX_MULTIPLIER, and a
 * multiplexing step never multiplied (the reference's MultiplexedLink).
 */
export function multiplierProblems(requestTypes: readonly ChainedType[], multipliers: unknown): Problem[] {
  if (multipliers === undefined || multipliers === null) return [];
  if (typeof multipliers !== 'object' || Array.isArray(multipliers))
    return [{ code: 'not_allowed', input: ['multiplier'], detail: `must be an object of request type keys and numbers (got ${JSON.stringify(multipliers)})` }];
  const given = Object.entries(multipliers).flatMap(([key, times]): Problem[] =>
    Number.isInteger(times) && (times as number) >= 1 && (times as number) <= MAX_MULTIPLIER
      ? []
      : [{ code: 'not_allowed', input: ['multiplier', key], detail: `must be a whole number from 1 to ${MAX_MULTIPLIER} (got ${JSON.stringify(times)})` }],
  );
  if (given.length > 0) return given;
  return requestTypes.flatMap((type) => {
    const times = multiplierOf({ multipliers: multipliers as Record<string, number> }, type);
    if (type.forMultiplexing && times !== 1)
      return [
        { code: 'not_allowed' as const, input: ['multiplier', type.key], detail: `${type.key} is for multiplexing and cannot be multiplied (got ${times})` },
      ];
    return [];
  });
}

/**
 * Orders a submission may take together (the reference's OrderCompatibilityValidator): the same
 * `read_length`, and either none for multiplexing or all of them, with the same request types after it.
 */
export function compatibilityProblems(orders: readonly { id: number; readLength: unknown; requestTypes: readonly ChainedType[] }[]): Problem[] {
  if (orders.length < 2) return [];
  const problems: Problem[] = [];
  const readLengths = [...new Set(orders.map((o) => JSON.stringify(o.readLength ?? null)))];
  if (readLengths.length > 1)
    problems.push({
      code: 'not_allowed',
      input: [],
      detail: `orders ask for different read lengths (${readLengths.join(', ')}); one submission sequences one way`,
    });
  const after = orders.map((o) => {
    const at = o.requestTypes.findIndex((t) => t.forMultiplexing);
    return at < 0
      ? null
      : o.requestTypes
          .slice(at + 1)
          .map((t) => t.key)
          .join(',');
  });
  if (after.some((a) => a !== null) && !after.every((a) => a !== null && a === after[0]))
    problems.push({
      code: 'not_allowed',
      input: [],
      detail: `orders ${orders.map((o) => o.id).join(', ')} pool differently: either none is for multiplexing, or all are, with the same request types after it`,
    });
  return problems;
}

/**
 * The study of an order made from a template (the reference's AutomatedOrder, which detects it from the
 * assets' aliquots): the one named, else the one study of the aliquots. Assets of different single
 * studies are refused; an asset holding several studies (a pool) makes a cross-study order (no study).
 */
export function detectStudy(named: number | null, assetStudies: readonly (readonly number[])[], autodetect: boolean): Outcome<number | null> {
  if (named !== null) return ok(named);
  const all = [...new Set(assetStudies.flat())].sort((a, b) => a - b);
  if (autodetect && all.length === 1) return ok(all[0]!);
  if (autodetect && assetStudies.some((studies) => new Set(studies).size > 1)) return ok(null);
  const why = !autodetect
    ? 'autodetect_studies is false'
    : all.length === 0
      ? 'the assets hold no aliquot with a study'
      : `the assets are of different studies (${all.join(', ')})`;
  return refuse([{ code: 'blank', input: ['study_uuid'], detail: `no study: ${why}; name one with study_uuid` }]);
}

/** An order's `request_options` as JSON: at most this many bytes (each of its requests carries them; lib/domain/request-books.ts). */
export const MAX_REQUEST_OPTIONS_BYTES = 2_000;

export function requestOptionsProblems(options: Readonly<Record<string, unknown>>): Problem[] {
  const bytes = Buffer.byteLength(JSON.stringify(options));
  return bytes > MAX_REQUEST_OPTIONS_BYTES
    ? [{ code: 'over_budget', input: [], detail: `is ${bytes} bytes of JSON; an order's request options may be at most ${MAX_REQUEST_OPTIONS_BYTES}` }]
    : [];
}

/**
 * Assets one order may name: every well of 128 96-well plates (32 384-well plates), so one order covers
 * more than the 100 plates contract §7.1 asks of a submission. Bounded by the order's own record, which
 * stores each as `["wells", <id>]` (≤ 23 JSON bytes with 12-digit ids: ~283 KB, within ITEM_SIZE_LIMIT with
 * the largest request options), and by the request body (39 bytes a uuid: ~480 KB of the 1 MiB a body may be).
 */
export const MAX_ASSETS_PER_ORDER = 12_288;

/**
 * A submission's write (POST submissions with `order_uuids`): the submission; each order, linked to it,
 * with its entry under the submission (orders' `submission` index); `others` records made with it (work
 * orders, a pick list: no index entries); each request book it opens — the book,
 * its page guard, its entries under its labware and its submission (lib/resources/request-books.ts); count
 * shards of submissions and request books; the request item. A 384-well plate ordered with two request
 * types (768 requests, one book) is 10 items, 11 with its plate's audit entry; with an audit entry for each
 * plate, one order over 18 plates (one book each) is one transaction, over 101 plates 407 records and index entries.
 */
export const submissionItems = (orders: number, books: number, others = 0): WriteShape => ({
  records: 1 + orders + books + others,
  indexItems: orders + 3 * books,
  countedFamilies: books > 0 ? 2 : 1,
});

/** JSON bytes of the smallest request a book stores (its state, request type and times): what the request bound's bytes hold the most of. */
const SMALLEST_REQUEST_BYTES = Buffer.byteLength(JSON.stringify({ state: 'pending', requestType: 1, created: Date.UTC(2026, 0), updated: Date.UTC(2026, 0) }));

/**
 * The most requests a submission of `orders` orders could write within the bound of one request: a full
 * page in every book the bound has room for, and no more of the smallest requests than its bytes hold
 * (192,771). Counted before any request is made (planRequests), so an order multiplied past it is refused
 * without building them; what passes may still be refused by its books' real bytes, before anything is written.
 */
export function maxSubmissionRequests(orders: number): number {
  const books = Math.floor(
    (LARGE_WRITE_ITEM_LIMIT - writtenItems(submissionItems(orders, 0))) / (writtenItems(submissionItems(0, 1)) - writtenItems(submissionItems(0, 0))),
  );
  return Math.min(Math.max(books, 0) * REQUESTS_PER_BOOK, Math.floor(LARGE_WRITE_SIZE_LIMIT / SMALLEST_REQUEST_BYTES));
}

/** The problem of a submission past the bound of one request, naming it; `others`: records written with it (its work orders, a pick list). */
export const submissionBudgetProblem = (orders: number, books: number, requests: number, others = 0): Problem[] =>
  withinRequest(
    submissionItems(orders, books, others),
    `submitting ${orders} orders (${requests} requests in ${books} request books, one for each labware and page of 1,000${others > 0 ? `, and ${others} records made with them` : ''})`,
  );
