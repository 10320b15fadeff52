import type { Labware } from '#lib/domain/labware.ts';
import { slotId, slotUuid } from '#lib/domain/labware-ids.ts';
import { bounded } from '#lib/store/bounded.ts';
import { nextIds } from './floor/create.ts';
import { countsPut, newStored } from './floor/creations.ts';
import { asRecord, Db, documentClient, type Item } from './floor/db.ts';
import { recordKey } from './floor/keys.ts';
import type { HttpClient } from './http-client.ts';
import { termItems, type CopyBook } from './seed-books.ts';
import { registerPurpose } from './seed-work.ts';

/**
 * What Limber's ongoing-plates page lists (test/integration/limber-ongoing-plates.test.ts, at the bench's
 * scale): 40 submitted 96-well plates, a sample in each well and a library and a sequencing request out of
 * each well from a submission template's `and_submit`, under a purpose of their own (so no other scenario's
 * plate is in the search). Seeded cheaply: the plates are copies of the filled 96-well plate written
 * straight into the table (with the index entries and counts the registry gives them); the first plate's
 * order and submission are made through the API as Limber's SequencescapeSubmission makes them, and every
 * other plate's request book is a copy of that one (./seed-books.ts) naming the same order and submission,
 * which this search does not read.
 */
export const ONGOING_PLATE_COUNT = 40;

const PURPOSE = 'Bench Ongoing Stock';
const TEMPLATE = 'Library Creation - Illumina';
const OPTIONS = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };
const WELLS = 96;

export interface OngoingSeeds {
  /** The plates' purpose, by name (the search names it). */
  purpose: string;
}

/**
 * The plates, each a copy of `template` (a filled 96-well plate) under the purpose, with its own external
 * barcode, its aliquots of `study` (an order takes its study from them).
 */
async function copiesOf(db: Db, table: string, template: number, purpose: number, study: number): Promise<Item[]> {
  const item = await db.get(table, recordKey('labware', template), true);
  if (!item) throw new Error(`plate ${template} is missing`);
  const { receptacles, ...labware } = item.attrs as unknown as Labware;
  const withStudy = receptacles.map((well) => ({ ...well, aliquots: well.aliquots.map((aliquot) => ({ ...aliquot, study })) }));
  const now = new Date().toISOString();
  const plates = (await nextIds(db, table, 'labware', ONGOING_PLATE_COUNT)).map((id) => {
    const barcode = `ONGOING${id}`;
    const attrs = { ...labware, receptacles: withStudy, barcode: { human_barcode: barcode, machine_barcode: barcode, ean13_barcode: null, external: true } };
    return newStored(now, 'plates', id, attrs, { ...(item.rels as Item), purpose: { type: 'plate_purposes', id: purpose } });
  });
  await db.batchPut(table, [...plates, ...plates.flatMap((plate) => termItems(asRecord(plate)))]);
  await db.update(countsPut(table, 'labware', plates).Update);
  return plates;
}

/** The first plate's requests through the API: an order of its 96 wells from the template, submitted with `and_submit`; the ids its book names and a request of it. */
async function submitted(api: HttpClient, plate: Item): Promise<{ order: number; submission: number; request: string }> {
  const uuid = async (path: string) => (await api.json('GET', path)).data[0].attributes.uuid as string;
  const user = await uuid('/users?filter%5Blogin%5D=admin');
  const template = await uuid(`/submission_templates?filter%5Bname%5D=${encodeURIComponent(TEMPLATE)}`);
  const assets = Array.from({ length: WELLS }, (_, slot) => slotUuid(plate.uuid as string, slot + 1));
  const order = (
    await api.json('POST', '/orders', {
      data: {
        type: 'orders',
        attributes: { submission_template_uuid: template, submission_template_attributes: { request_options: OPTIONS, user_uuid: user, asset_uuids: assets } },
      },
    })
  ).data;
  const submission = (
    await api.json('POST', '/submissions', {
      data: { type: 'submissions', attributes: { and_submit: true, order_uuids: [order.attributes.uuid], user_uuid: user } },
    })
  ).data;
  const request = await uuid(`/wells/${slotId(plate.id as number, 1)}/requests_as_source`);
  return { order: Number(order.id), submission: Number(submission.id), request };
}

export async function seedOngoingPlates(
  api: HttpClient,
  endpoint: string,
  table: string,
  template: number,
  study: number,
  copyBook: CopyBook,
  log: (line: string) => void,
): Promise<OngoingSeeds> {
  const started = performance.now();
  const db = new Db(documentClient(endpoint));
  const purpose = Number(await registerPurpose(api, WELLS, PURPOSE));
  const [first, ...others] = await copiesOf(db, table, template, purpose, study);
  const { order, submission, request } = await submitted(api, first!);
  await bounded(others, 4, async (plate) => void (await copyBook(request, { plate: plate.id as number, submission, order })));
  log(`seeded Limber's ${ONGOING_PLATE_COUNT} submitted plates in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { purpose: PURPOSE };
}
