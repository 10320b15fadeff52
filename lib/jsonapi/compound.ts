import { LAMBDA_RESPONSE_BYTES, overLimit, payloadCost, type BodyBound } from '#lib/http/response-size.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { fittingPrefix, resolveIncludes, type IncludeResult, type IncludeTree, type Needed } from '#lib/jsonapi/include.ts';
import { pastReadBudget } from '#lib/jsonapi/read-budget.ts';
import { loadAttributes, renderResource, type Fieldsets } from '#lib/jsonapi/render.ts';
import type { RelValue, StoredRecord } from '#lib/store/records.ts';

/**
 * A response body of primary records and their includes (a compound document), kept within what one
 * response may hold (contract §7.2): the reads' budget (lib/jsonapi/read-budget.ts) and Lambda's response
 * (lib/http/response-size.ts). A page whose includes are large keeps its first records, each with all its
 * includes, and its caller sends the rest on through `links.next`; only a record whose own includes cannot
 * fit is a 400 naming the include and the limit.
 */

export interface ReadOptions {
  fields: Fieldsets;
  tree: IncludeTree;
}

/** What shortened a page: its reads' budget, or its bytes. */
export type Shortened = 'reads' | 'bytes';

/** The document's members after `data` and `included` (links, meta), for the primary records kept and what shortened them. */
export type Frame = (kept: number, shortenedBy?: Shortened) => Record<string, unknown>;

/**
 * Room for what the frame gains when the page is shortened (a `next` link with a cursor, the `meta`
 * member saying so): a cursor is ~150 characters, the member ~80.
 */
const SHORTENED_FRAME_BYTES = 1024;

/** Margin under a compressed size measured past the limit, when planning the page again. */
const REPLAN_MARGIN = 0.95;

interface Rendered {
  text: string;
  cost: number;
  lastRoot: number;
}

/** The records of a body being planned: which primary record each is first needed by, and what the walk found. */
interface Plan {
  walk: IncludeResult;
  fields: Fieldsets;
  /** Every record the kept primary records need, primary records first, then in the order the walk read them, with the first primary record needing it. */
  records: Map<StoredRecord, number>;
  attributes: Map<StoredRecord, Map<string, unknown>>;
  /** Each record rendered so far, with the linkages of the primary records the walk resolved: its text, what it adds to the body, and the last primary record one of its rendered linkages is for (-1: none). */
  json: Map<StoredRecord, Rendered>;
  /** What each primary record rendered so far adds to the body. */
  costs: number[];
}

/**
 * The body of `primary` with their includes: `one` renders `data` as the first record (or null), `many`
 * as an array. `shorten`: whether the primary records may be cut (a listing's page); otherwise all of them
 * fit or the request is a 400 (a single record, or a write's answer, which must tell the whole write).
 *
 * The includes are resolved for every primary record at once (one batched read per level, as for any
 * page); then the records are rendered primary record by primary record, each with what it is the first
 * to need, until the next one would pass the bound. A body planned on gzip's assumed ratio is measured
 * compressed and planned again if it compressed less.
 */
export async function compoundBody(
  ctx: RequestContext,
  primary: readonly StoredRecord[],
  options: ReadOptions,
  bound: BodyBound,
  shape: 'one' | 'many',
  frame: Frame,
  shorten: boolean,
): Promise<string> {
  const walk = samePrimaryRecords(await resolveIncludes(ctx, primary, options.tree), primary);
  if (!shorten && walk.resolved < primary.length) throw notFitting(primary, walk.resolved, walk, options.tree, pastReadBudget());
  const records = new Map<StoredRecord, number>(primary.slice(0, walk.resolved).map((r, i) => [r, i]));
  for (const [record, { root }] of walk.included) if (root < walk.resolved) records.set(record, Math.min(root, records.get(record) ?? root));
  const plan: Plan = {
    walk,
    fields: options.fields,
    records,
    attributes: await loadAttributes(ctx, [...records.keys()], options.fields),
    json: new Map(),
    costs: [],
  };
  const readsCut = walk.resolved < primary.length ? 'reads' : undefined;
  let bytes = bound.bytes - payloadCost(JSON.stringify(frame(walk.resolved, readsCut))) - SHORTENED_FRAME_BYTES;
  let kept = renderWithin(ctx, plan, bytes);
  for (;;) {
    if (kept < primary.length && (kept === 0 || !shorten)) {
      const why = `would take the response past the ${LAMBDA_RESPONSE_BYTES} bytes it may have${bound.gzip ? ', gzip-compressed' : '; send Accept-Encoding: gzip'}`;
      throw notFitting(primary, kept, walk, options.tree, why);
    }
    const shortenedBy = kept < walk.resolved ? 'bytes' : readsCut;
    const { body, cost } = assemble(ctx, plan, kept, shape, frame(kept, shortenedBy));
    const over = overLimit(body, bound.gzip, cost);
    if (over <= 1) return body;
    // It compressed less than assumed: plan again on what it measured.
    bytes = Math.floor((bytes / over) * REPLAN_MARGIN);
    kept = fittingPrefix(plan.costs, bytes);
  }
}

/**
 * The walk with a primary record reached again by an include (a write's answer: the record it staged, read
 * once more through its labware's views) counted as that primary record: a resource is in a document once,
 * its linkages from both routes on the one object.
 */
function samePrimaryRecords(walk: IncludeResult, primary: readonly StoredRecord[]): IncludeResult {
  const byKey = new Map(primary.map((record) => [refKey(record), record]));
  const included = new Map<StoredRecord, Needed<string>>();
  for (const [record, needed] of walk.included) {
    const same = byKey.get(refKey(record));
    if (!same || same === record) {
      included.set(record, needed);
      continue;
    }
    if (!included.has(same) || needed.root < included.get(same)!.root) included.set(same, needed);
    const linkages = walk.linkages.get(record);
    if (linkages) walk.linkages.set(same, new Map([...linkages, ...(walk.linkages.get(same) ?? [])]));
  }
  return { ...walk, included };
}

/**
 * Renders the records of the primary records in order, each primary record with what it is the first to
 * need, while they fit `bytes`: the page's records past the first that does not fit are never rendered.
 * Returns how many fit.
 */
function renderWithin(ctx: RequestContext, plan: Plan, bytes: number): number {
  const byRoot = Array.from({ length: plan.walk.resolved }, (): StoredRecord[] => []);
  for (const [record, root] of plan.records) byRoot[root]!.push(record);
  let total = 0;
  for (const [root, records] of byRoot.entries()) {
    let cost = 0;
    for (const record of records) {
      const rendered = render(ctx, plan, record, plan.walk.resolved);
      plan.json.set(record, rendered);
      // A comma before each resource but the first of its array: counted for every one, a byte or two to spare.
      cost += rendered.cost + 1;
    }
    if (total + cost > bytes) return root;
    total += cost;
    plan.costs.push(cost);
  }
  return plan.walk.resolved;
}

/** A record with the linkages the first `kept` primary records need, as text. */
function render(ctx: RequestContext, plan: Plan, record: StoredRecord, kept: number): Rendered {
  const linkages = new Map<string, RelValue>();
  let lastRoot = -1;
  for (const [name, { value, root }] of plan.walk.linkages.get(record) ?? []) {
    if (root >= kept) continue;
    linkages.set(name, value);
    lastRoot = Math.max(lastRoot, root);
  }
  const text = JSON.stringify(renderResource(ctx, record, plan.fields, linkages, plan.attributes.get(record)));
  return { text, cost: payloadCost(text), lastRoot };
}

/**
 * The document of the first `kept` primary records: `data`, then `included` in the order the walk read
 * it (what the kept records need, less the kept records themselves), then the frame's members — the text
 * JSON.stringify makes of the whole document — with what it takes of the response (payloadCost), summed
 * from its parts rather than counted again over the whole. A record with a linkage only a record past the
 * cut needed is rendered again without it (its relationship keeps its links).
 */
function assemble(ctx: RequestContext, plan: Plan, kept: number, shape: 'one' | 'many', rest: Record<string, unknown>): { body: string; cost: number } {
  let cost = 0;
  const json = (record: StoredRecord) => {
    const first = plan.json.get(record)!;
    const rendered = first.lastRoot >= kept ? render(ctx, plan, record, kept) : first;
    cost += rendered.cost;
    return rendered.text;
  };
  const records = [...plan.records];
  const data = records.slice(0, kept).map(([record]) => json(record));
  const included = records
    .slice(kept)
    .filter(([, root]) => root < kept)
    .map(([record]) => json(record));
  const document = (data: string[], included: string[]) => {
    const members = [
      `"data":${shape === 'many' ? `[${data.join(',')}]` : (data[0] ?? 'null')}`,
      ...(included.length > 0 ? [`"included":[${included.join(',')}]`] : []),
      ...Object.entries(rest).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`),
    ];
    return `{${members.join(',')}}`;
  };
  // The document's text around its records: the same members with each record's text left out.
  const frame = document(
    data.map(() => ''),
    included.map(() => ''),
  );
  return { body: document(data, included), cost: cost + payloadCost(frame) };
}

/** The 400 for the primary record at `index`, whose own includes cannot fit: naming the include path that reached most of what it needs. */
function notFitting(primary: readonly StoredRecord[], index: number, walk: IncludeResult, tree: IncludeTree, why: string) {
  const byPath = new Map<string, number>();
  for (const { value: path, root } of walk.included.values()) if (root === index) byPath.set(path, (byPath.get(path) ?? 0) + 1);
  const path = [...byPath].sort((a, b) => b[1] - a[1])[0]?.[0] ?? includePaths(tree).join(',');
  return errors.includeTooLarge(primary[index]!, path, why);
}

/** The include paths of a tree, as a request names them. */
const includePaths = (tree: IncludeTree, prefix = ''): string[] =>
  [...tree].flatMap(([name, child]) => (child.size === 0 ? [`${prefix}${name}`] : includePaths(child, `${prefix}${name}.`)));
