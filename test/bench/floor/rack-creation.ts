import { canonicalBarcode, externalBarcode } from '#lib/domain/barcode.ts';
import { emptyReceptacles } from '#lib/domain/labware.ts';
import { rackSlot, rackState } from '#lib/domain/racks.ts';
import { registry } from '#lib/resources/index.ts';
import { auditOps, loginOf, type Touched } from './audit.ts';
import { nextIds, problem, requestPut } from './create.ts';
import { asRecord, type Db, type Item } from './db.ts';
import { countsPut, newStored } from './creations.ts';
import { termKey } from './keys.ts';
import { byUuids, created, event } from './lab-work.ts';
import { parse, type Attributes } from './lab.ts';
import { newRecordOps, writeLarge } from './large-write.ts';
import type { Answer } from './reads.ts';

/**
 * POST /api/v2/specific_tube_rack_creations as Limber's plate split sends it (`parent_uuids: [a plate]`,
 * `tube_rack_attributes: [{tube_rack_name, tube_rack_barcode, tube_rack_purpose_uuid, racked_tubes:
 * [{tube_barcode, tube_name, tube_purpose_uuid, tube_position}]}]`, `user_uuid`), every tube new: one
 * BatchGetItem of what the body names, the guards of the barcodes given beside it (a barcode already on a
 * tube racks that tube, so the answer depends on them: here one taken is refused, an answer the bench never
 * asks for) and the ids (one ADD for every rack and tube, one for the creation); then one write (./large-write.ts:
 * two racks of 96 are ~400 items) of the racks, their tubes, the creation, each with the index entries the
 * service's registry gives it (barcode guards, parent links), two count shards and the request item.
 */

interface Rack {
  tube_rack_name?: string;
  tube_rack_barcode: string;
  tube_rack_purpose_uuid: string;
  racked_tubes: { tube_barcode: string; tube_name?: string; tube_purpose_uuid: string; tube_position: string }[];
}

const ref = (item: Item) => ({ type: item.type as string, id: item.id as number });

export async function specificTubeRackCreation(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'specific_tube_rack_creations') as (Attributes & { tube_rack_attributes?: Rack[]; parent_uuids?: string[] }) | undefined;
  const racks = input?.tube_rack_attributes;
  const parents = input?.parent_uuids;
  if (!Array.isArray(racks) || !Array.isArray(parents) || parents.length !== 1 || typeof input!.user_uuid !== 'string')
    return problem(400, 'tube_rack_attributes, one parent and a user by uuid');
  const tubes = racks.flatMap((rack) => rack.racked_tubes);
  const purposes = [...new Set([...racks.map((r) => r.tube_rack_purpose_uuid), ...tubes.map((t) => t.tube_purpose_uuid)])];
  const barcodes = [...racks.map((r) => r.tube_rack_barcode), ...tubes.map((t) => t.tube_barcode)].map(canonicalBarcode);
  const [found, taken, ids, [creationId]] = await Promise.all([
    byUuids(db, table, [...purposes, parents[0]!, input!.user_uuid]),
    db.batchGet(
      table,
      barcodes.map((barcode) => termKey('barcode-guard', barcode)),
    ),
    nextIds(db, table, 'labware', racks.length + tubes.length),
    nextIds(db, table, 'specific_tube_rack_creations', 1),
  ]);
  if (!found) return problem(404, 'a record named is missing');
  if (taken.length > 0) return problem(422, 'a barcode given is taken');
  const [parent, user] = [found.get(parents[0]!.toLowerCase())!, found.get(input!.user_uuid.toLowerCase())!];
  const purpose = (uuid: string) => found.get(uuid.toLowerCase())!;
  const now = new Date().toISOString();

  // Tube ids first, as the service reserves them; each rack's after.
  const tubeIds = ids.slice(0, tubes.length);
  const rackIds = ids.slice(tubes.length);
  const made: Item[] = [];
  let first = 0;
  const rackItems = racks.map((rack, i) => {
    const rackPurpose = purpose(rack.tube_rack_purpose_uuid);
    const racked = rack.racked_tubes.map((tube, j) => ({ coordinate: tube.tube_position, tube: tubeIds[first + j]! }));
    const item = newStored(
      now,
      'tube_racks',
      rackIds[i]!,
      {
        name: rack.tube_rack_name ?? null,
        aliquotCount: 0,
        size: Number((rackPurpose.attrs as Attributes).size ?? 96),
        state: rackState(racked.map(() => 'pending')),
        receptacles: [],
        racked,
        owner: user.id,
        barcode: externalBarcode(rack.tube_rack_barcode),
      },
      { purpose: ref(rackPurpose), parents: [ref(parent)], custom_metadatum_collection: null },
    );
    for (const [j, tube] of rack.racked_tubes.entries())
      made.push(
        newStored(
          now,
          'tubes',
          tubeIds[first + j]!,
          {
            name: tube.tube_name ?? null,
            aliquotCount: 0,
            state: 'pending',
            receptacles: emptyReceptacles(1),
            rackSlot: rackSlot(tube.tube_position),
            owner: user.id,
            barcode: externalBarcode(tube.tube_barcode),
          },
          { purpose: ref(purpose(tube.tube_purpose_uuid)), parents: [], custom_metadatum_collection: null, tube_rack: ref(item) },
        ),
      );
    first += racked.length;
    return item;
  });
  const record = newStored(now, 'specific_tube_rack_creations', creationId!, {}, { children: rackItems.map(ref), parents: [ref(parent)], user: ref(user) });
  const labware = [...rackItems, ...made];
  const creation = event(now, base, 'specific_tube_rack_creations.created', asRecord(record), user);
  const createdEvents = labware.map((item) => event(now, base, `${item.type}.created`, asRecord(item), user));
  // The creation names its racks and its plate; each tube is touched by its own event only.
  const touched: Touched[] = [
    ...labware.map((item, i) => ({ labware: ref(item), events: i < rackItems.length ? [creation, createdEvents[i]!] : [createdEvents[i]!] })),
    { labware: ref(parent), events: [creation] },
  ];
  await writeLarge(
    db,
    table,
    [...[...labware, record].flatMap(newRecordOps), ...auditOps(now, creation, touched, loginOf(user))],
    [
      countsPut(table, 'labware', labware),
      countsPut(table, registry.familyOf('specific_tube_rack_creations'), [record]),
      requestPut(table, now, [creation, ...createdEvents]),
    ],
  );
  return created(base, record);
}
