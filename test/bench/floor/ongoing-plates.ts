import { labwareState } from '#lib/domain/labware.ts';
import { labwareOfSlot } from '#lib/domain/labware-ids.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { asLinked } from '#lib/jsonapi/resource.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { registry } from '#lib/resources/index.ts';
import { aliquotViews, receptacleViews } from '#lib/resources/labware-views.ts';
import { bounded } from '#lib/store/bounded.ts';
import { refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { PLATE_DEFAULT_INCLUDES } from '../../support/limber.ts';
import { termsUnder, type Db } from './db.ts';
import { lookupPk } from './keys.ts';
import { aggregate, load, requestsIn, termsUnderEach } from './plate-page.ts';
import type { Answer } from './reads.ts';

/**
 * The floor of Limber's ongoing-plates search (search_controller.rb `ongoing_plates`: `Plate.find_all` with
 * `Plate::DEFAULT_INCLUDES`, purposes by name, the six states, `include_used` false, 30 a page) for pages
 * that fit whole: the fewest DynamoDB reads that answer it, planned by hand, every read that does not wait
 * for another at once. The filters have no index but the purpose's, so every plate of the purposes is read
 * and tested (the count, and so `links.last`, needs all of them): the plates by the purposes' lookup index,
 * then their items and the purposes in one BatchGetItem beside one Query per plate for a child (none: "not
 * used"); the page's plates' request books by one Query each, then one BatchGetItem. It renders with the
 * service's own resource definitions (lib/jsonapi/render.ts and the labware views), as the plate page's floor
 * does, so what the ratio measures is the service's request path, listing and include engine against this.
 * docs/decisions.md, "Measuring speed".
 */

/** The include paths this floor answers, as Limber's client flattens them. */
export const ONGOING_INCLUDE = PLATE_DEFAULT_INCLUDES.join(',');

/** Child Queries at once: the service's (lib/resources/lineage.ts), so both are as polite to the table. */
const PARALLEL_CHILD_QUERIES = 8;

/** The plates of a purpose, in id order: one Query of its lookup index (keys only; a page of plates is far under its 1 MB). */
async function platesOfPurpose(db: Db, table: string, purpose: number): Promise<Ref[]> {
  const items = await db.query({
    TableName: table,
    IndexName: 'byLookup2',
    KeyConditionExpression: 'gsi4pk = :pk',
    ExpressionAttributeValues: { ':pk': lookupPk(2, `purpose#${purpose}`) },
    ProjectionExpression: '#t, #i',
    ExpressionAttributeNames: { '#t': 'type', '#i': 'id' },
  });
  return items.filter((item) => item.type === 'plates').map((item) => ({ type: 'plates', id: item.id as number }));
}

/** The plates that have a child (are "used"): one Query of each plate's children, at most one entry. */
async function usedPlates(db: Db, table: string, plates: readonly Ref[]): Promise<Set<number>> {
  const used = new Set<number>();
  await bounded(plates, PARALLEL_CHILD_QUERIES, async ({ id }) => {
    const child = await db.query({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `$lts#scope_labware.parents#value_${id}` },
      ProjectionExpression: '#i',
      ExpressionAttributeNames: { '#i': 'id' },
      ConsistentRead: true,
      Limit: 1,
    });
    if (child.length > 0) used.add(id);
  });
  return used;
}

/** The query as Limber sends it: the filters, and a numbered page (this floor follows no cursor: its pages are whole). */
interface Search {
  purposes: string[];
  states: Set<string>;
  includeUsed: boolean;
  number: number;
  size: number;
}

function searchOf(params: URLSearchParams): Search | undefined {
  const [number, size] = [Number(params.get('page[number]')), Number(params.get('page[size]'))];
  const includeUsed = params.get('filter[include_used]');
  if (!Number.isInteger(number) || number < 1 || !Number.isInteger(size) || size < 1 || params.has('page[cursor]')) return undefined;
  if (includeUsed !== 'true' && includeUsed !== 'false') return undefined;
  const list = (name: string) => (params.get(name) ?? '').split(',').filter((v) => v !== '');
  return { purposes: list('filter[purpose_name]'), states: new Set(list('filter[state]')), includeUsed: includeUsed === 'true', number, size };
}

/** GET /api/v2/plates?filter[include_used]&filter[purpose_name]&filter[state]&include=DEFAULT_INCLUDES&page[…]: a page of Limber's search. */
export async function ongoingPlates(db: Db, table: string, base: string, params: URLSearchParams): Promise<Answer> {
  const search = searchOf(params);
  if (!search) return { status: 400 };
  // Round 1: the purposes by name; round 2: their plates.
  const purposes = (await Promise.all(search.purposes.map((name) => termsUnder(db, table, 'purposes.name', name.toLowerCase())))).flat();
  const candidates = (await Promise.all(purposes.map((p) => platesOfPurpose(db, table, p.id)))).flat().sort((a, b) => a.id - b.id);
  // Round 3: the plates and their purposes (the only records of the purposes a page can include), and which plates are used.
  const [records, used] = await Promise.all([
    load(db, table, [...candidates, ...purposes]),
    search.includeUsed ? new Set<number>() : usedPlates(db, table, candidates),
  ]);
  const matching = candidates.flatMap((ref) => {
    const plate = records.get(`plates:${ref.id}`);
    return plate && !used.has(plate.id) && search.states.has(labwareState(labwareAttrs(plate))) ? [plate] : [];
  });
  const page = matching.slice((search.number - 1) * search.size, search.number * search.size);

  // Round 4: the page's plates' request books (one Query each); round 5: the books.
  const bookRefs = await termsUnderEach(db, table, 'requests.asset', page.map(aggregate));
  const books = await load(db, table, [...new Set([...bookRefs.values()].flat())]);
  const requests = requestsIn([...books.values()]);

  const linkages = new Map<StoredRecord, Map<string, RelValue>>();
  const included = new Map<string, StoredRecord>();
  const link = (record: StoredRecord, relationship: string, value: RelValue) => {
    if (!linkages.has(record)) linkages.set(record, new Map());
    linkages.get(record)!.set(relationship, value);
  };
  const include = (record: StoredRecord) => included.set(`${record.type}:${record.id}`, record);
  const refOf = (r: StoredRecord): Ref => ({ type: r.type, id: r.id });
  // A plate's purpose links as the service declares it (`purposes`, lib/resources/labware.ts), and is included as that type.
  const purposeLink = registry.get('plates')!.relationships!.purpose!;
  for (const plate of page) {
    const purpose = records.get(`${(plate.rels.purpose as Ref).type}:${(plate.rels.purpose as Ref).id}`);
    if (purpose) include(registry.as(purpose, purposeLink.linkedAs ?? purpose.type));
    link(plate, 'purpose', asLinked(purposeLink, plate.rels.purpose ?? null));
    const wells = receptacleViews(plate);
    link(plate, 'wells', wells.map(refOf));
    // A book's requests are out of this plate's wells or out of other labware its requests moved into.
    const out = requests.filter((r) => refsOf(r.rels.asset).some((a) => a.type === 'wells' && labwareOfSlot(a.id) === plate.id));
    for (const well of wells) {
      include(well);
      link(well, 'aliquots', well.rels.aliquots ?? []);
      link(well, 'requests_as_source', out.filter((r) => refsOf(r.rels.asset).some((a) => a.id === well.id)).map(refOf));
    }
    for (const request of out) {
      include(request);
      link(request, 'primer_panel', null);
    }
    for (const aliquot of aliquotViews(plate)) {
      // The submitted plates this floor is measured on are stock plates: their aliquots came out of no request.
      if (aliquot.rels.request) throw new Error(`aliquot ${aliquot.id} has a request: this floor reads none (wells.aliquots.request.*)`);
      include(aliquot);
      link(aliquot, 'request', null);
    }
  }

  const ctx = { registry, baseUrl: base } as RequestContext;
  const render = (r: StoredRecord) => renderResource(ctx, r, new Map(), linkages.get(r));
  // The page's links as the service writes them (lib/jsonapi/paging.ts, pageLinks): every other parameter kept, then the page's.
  const kept = [...params].filter(([k]) => !k.startsWith('page'));
  const pageLink = (n: number) =>
    `${base}/api/v2/plates?${[...kept, ['page[number]', String(n)], ['page[size]', String(search.size)]].map(([k, v]) => `${encodeURIComponent(k!)}=${encodeURIComponent(v!)}`).join('&')}`;
  const last = Math.max(1, Math.ceil(matching.length / search.size));
  return {
    status: 200,
    body: {
      data: page.map(render),
      included: [...included.values()].map(render),
      links: {
        first: pageLink(1),
        ...(search.number > 1 ? { prev: pageLink(Math.min(search.number - 1, last)) } : {}),
        ...(search.number < last ? { next: pageLink(search.number + 1) } : {}),
        last: pageLink(last),
      },
      meta: { record_count: matching.length },
    },
  };
}
