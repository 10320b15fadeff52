import * as z from '#lib/zod.ts';
import { aliquotId, labwareOfAliquot, labwareOfSlot, parseSlotUuid, slotId, slotOf } from '#lib/domain/labware-ids.ts';
import { RECEPTACLE_STATES } from '#lib/domain/labware.ts';
import { addAliquot } from '#lib/domain/receptacles.ts';
import { attr, lazySchema, defineResource, reverse, toMany, toOne, uuidAttribute, type FilterDef } from '#lib/jsonapi/resource.ts';
import { linkOf, linkedTo, type TermHit } from '#lib/store/records.ts';
import { aliquotCount, aliquotViews, receptacleCount, receptacleViews } from '#lib/resources/labware-views.ts';
import { labwareAttrs, receptacleType } from '#lib/operations/labware-records.ts';
import { accepted, relationshipAt } from '#lib/jsonapi/problems.ts';
import { transferRequestsAsSourceRelationship } from '#lib/resources/transfer-requests.ts';
import { receptacleLineage, requestsAsTarget } from '#lib/resources/receptacle-lineage.ts';
import { unrecorded } from '#lib/resources/unrecorded.ts';

/** Receptacle uuids name their labware's uuid and their slot (lib/domain/labware-ids.ts). */
const receptacleUuidFilter: FilterDef = {
  lookup: async (ctx, values) => {
    const parsed = values.map(parseSlotUuid);
    const labware = await ctx.loader.byUuids(
      parsed.map((p) => p?.labwareUuid ?? ''),
      ['plates', 'tubes'],
    );
    // Only slots the labware has (a 96-well plate has no slot 200): else the count would include a record that is not there.
    return labware.flatMap((record, i): TermHit[] =>
      record && parsed[i]!.slot <= labwareAttrs(record).receptacles.length
        ? [{ ref: '-', family: 'receptacles', type: receptacleType(record.type), id: slotId(record.id, parsed[i]!.slot) }]
        : [],
    );
  },
  matches: (record, values) => values.some((v) => v.toLowerCase() === record.uuid),
};

/** The reference's `has_one :labware` (shared_behaviour/receptacle.rb) is not polymorphic: it links as `labware` (contract §7.4). */
const receptacleLabware = toOne('labware', 'R', { linkedAs: 'labware' });

const receptacleState = attr('R', () => z.enum(RECEPTACLE_STATES));
/** Microlitres, as volume updates left it (lib/domain/volumes.ts): the reference's well attribute; null while never recorded. */
const currentVolume = attr('R', () => z.number().check(z.gte(0)));
const oligo = lazySchema(() => z.string());
const tagIndex = lazySchema(() => z.number().check(z.int(), z.positive()));

export const wells = defineResource({
  type: 'wells',
  family: 'receptacles',
  supertypes: ['receptacles'],
  methods: ['list', 'read'],
  embedded: { parentTypes: ['plates'], parentId: labwareOfSlot, extract: receptacleViews, count: receptacleCount },
  attributes: { ...uuidAttribute, position: attr('R', () => z.object({ name: z.string() })), state: receptacleState, current_volume: currentVolume },
  relationships: {
    plate: toOne('plates', 'R'),
    labware: receptacleLabware,
    aliquots: toMany('aliquots', 'R'),
    requests_as_source: reverse('requests', 'asset'),
    requests_as_target: requestsAsTarget,
    ...receptacleLineage,
    // Stored with the receptacle: its view carries the linkage (lib/resources/labware-views.ts).
    qc_results: toMany('qc_results', 'R'),
    poly_metadata: reverse('poly_metadata', 'metadatable'),
    // Into it: stored with the receptacle (its view carries the linkage); out of it: found in its labware's children.
    transfer_requests_as_target: toMany('transfer_requests', 'R'),
    transfer_requests_as_source: transferRequestsAsSourceRelationship,
  },
  filters: { uuid: receptacleUuidFilter },
});

/** The receptacle of a tube; as a polymorphic type also every well (wells are receptacles). */
export const receptacles = defineResource({
  type: 'receptacles',
  family: 'receptacles',
  members: ['receptacles', 'wells'],
  methods: ['list', 'read'],
  embedded: { parentTypes: ['tubes'], parentId: labwareOfSlot, extract: receptacleViews, count: receptacleCount },
  attributes: { ...uuidAttribute, state: receptacleState, current_volume: currentVolume },
  relationships: {
    labware: receptacleLabware,
    aliquots: toMany('aliquots', 'R'),
    requests_as_source: reverse('requests', 'asset'),
    requests_as_target: requestsAsTarget,
    ...receptacleLineage,
    qc_results: toMany('qc_results', 'R'),
    transfer_requests_as_target: toMany('transfer_requests', 'R'),
    transfer_requests_as_source: transferRequestsAsSourceRelationship,
  },
  filters: { uuid: receptacleUuidFilter },
});

export const aliquots = defineResource({
  type: 'aliquots',
  family: 'aliquots',
  methods: ['list', 'read', 'create'],
  embedded: { parentTypes: ['plates', 'tubes'], parentId: labwareOfAliquot, extract: aliquotViews, count: aliquotCount },
  attributes: {
    tag_oligo: attr('R', oligo),
    tag_index: attr('R', tagIndex),
    tag2_oligo: attr('R', oligo),
    tag2_index: attr('R', tagIndex),
    library_type: attr('WO', () => z.string().check(z.minLength(1))),
    // The reference's write-once `insert_size_to` (traction-ui imports it as a library's insert size).
    insert_size_to: attr('WO', () => z.number().check(z.int(), z.positive())),
  },
  relationships: {
    receptacle: toOne('receptacles', 'WO', { required: true }),
    sample: toOne('samples', 'WO', { required: true }),
    study: toOne('studies', 'WO'),
    // The outer request a transfer request gave the copy (contract §6): how clients find a well's work.
    request: toOne('requests', 'R'),
    // Given by a bait library layout (lib/resources/bait-library-layouts.ts).
    bait_library: toOne('bait_libraries', 'R'),
    // Given on POST (Limber's randomised controls are made with one: contract §7.4); copies carry it on.
    project: toOne('projects', 'WO'),
    // The receptacle the library was made in (the reference's `library`); copies carry it on.
    library: toOne('receptacles', 'WO'),
    // Limber reads these. An aliquot holds its tags' oligos, not tag records.
    tag: unrecorded('one', 'tags'),
    tag2: unrecorded('one', 'tags'),
    poly_metadata: reverse('poly_metadata', 'metadatable'),
  },
  filters: {},

  /** Puts a sample (with its study, project and library, if named) into a well or tube: one rewrite of the labware, refused if it would clash (lib/domain/receptacles.ts). */
  create: async (ctx, input) => {
    const receptacle = input.relationships.receptacle!;
    const sample = input.relationships.sample!;
    const study = input.relationships.study;
    const project = input.relationships.project;
    const library = input.relationships.library;
    const insertSizeTo = input.attributes.insert_size_to;
    const labware = (await ctx.loader.one(linkOf(receptacle, 'plate') ?? linkedTo(receptacle, 'labware')))!;
    const after = accepted(
      addAliquot(
        labwareAttrs(labware),
        { slot: slotOf(receptacle.id), name: `${receptacle.type} ${receptacle.id}` },
        {
          sample: sample.id,
          study: study?.id ?? null,
          tag: null,
          tag2: null,
          library_type: input.attributes.library_type ?? null,
          ...(project ? { project: project.id } : {}),
          ...(library ? { library: { type: library.type === 'wells' ? 'wells' : 'receptacles', id: library.id } } : {}),
          ...(insertSizeTo === undefined || insertSizeTo === null ? {} : { insert_size_to: insertSizeTo }),
        },
      ),
      relationshipAt,
    );
    const updated = ctx.uow.update(labware, { attrs: { receptacles: after.receptacles, aliquotCount: after.aliquotCount } });
    return aliquotViews(updated).find((v) => v.id === aliquotId(labware.id, after.aliquotCount))!;
  },
});
