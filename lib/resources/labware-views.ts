import { createHash } from 'node:crypto';
import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import { aliquotId, qcResultId, slotId, slotUuid, transferRequestId } from '#lib/domain/labware-ids.ts';
import { receptacleState, type TransferRequest } from '#lib/domain/labware.ts';
import type { QcResult } from '#lib/domain/qc-results.ts';
import type { Ref, RelValue, StoredRecord } from '#lib/store/records.ts';
import { labwareAttrs, receptacleType } from '#lib/operations/labware-records.ts';

/**
 * Labware as records: the aggregate (lib/domain/labware.ts) is a labware record's attributes, and what it
 * holds (wells, a tube's receptacle, aliquots, racked tubes) is rendered as records of their own, views
 * of their labware with ids derived from its id (lib/domain/labware-ids.ts).
 */

export const renderBarcode = (record: StoredRecord) => {
  const { human_barcode, machine_barcode, ean13_barcode } = labwareAttrs(record).barcode;
  return { ean13_barcode, machine_barcode, human_barcode };
};

export function aliquotRefs(record: StoredRecord, slot?: number): Ref[] {
  const receptacles = labwareAttrs(record).receptacles;
  const held = slot === undefined ? receptacles : receptacles.slice(slot - 1, slot);
  return held.flatMap((r) => r.aliquots).map((a) => ({ type: 'aliquots', id: aliquotId(record.id, a.n) }));
}

/**
 * A record held by a labware: it shares the labware's timestamps and version. Built property by property:
 * spreading `view` and adding three properties took ~10 µs a view on Node 20 against ~0.1 µs so, and a
 * 384-well plate page builds ~1,500 views (docs/measurements.md, "Includes and their read layout").
 */
export const viewOf = (labware: StoredRecord, view: Pick<StoredRecord, 'family' | 'id' | 'type' | 'uuid' | 'attrs' | 'rels'>): StoredRecord => ({
  family: view.family,
  id: view.id,
  type: view.type,
  uuid: view.uuid,
  attrs: view.attrs,
  rels: view.rels,
  createdAt: labware.createdAt,
  updatedAt: labware.updatedAt,
  version: labware.version,
});

/** Receptacle records (wells, a tube's receptacle), each with its own state. */
export function receptacleViews(labware: StoredRecord): StoredRecord[] {
  const attrs = labwareAttrs(labware);
  const type = receptacleType(labware.type);
  const layout = attrs.size ? layoutForSize(attrs.size) : undefined;
  return attrs.receptacles.map((receptacle, i) => {
    const slot = i + 1;
    // Assigned in order rather than spread from optional parts: this runs for every well of every plate read.
    const own: Record<string, unknown> = {};
    if (layout) own.position = { name: positionAt(layout, i) };
    own.state = receptacleState(receptacle);
    own.current_volume = receptacle.volume ?? null;
    const rels: Record<string, RelValue> = {};
    // Every receptacle has its `labware` (the reference's); a well has its `plate` too.
    if (type === 'wells') rels.plate = { type: labware.type, id: labware.id };
    rels.labware = { type: labware.type, id: labware.id };
    rels.aliquots = aliquotRefs(labware, slot);
    rels.qc_results = qcResultRefs(labware, slot);
    rels.transfer_requests_as_target = transferRequestRefs(labware, slot);
    return viewOf(labware, { family: 'receptacles', id: slotId(labware.id, slot), type, uuid: slotUuid(labware.uuid, slot), attrs: own, rels });
  });
}

export const receptacleCount = (labware: StoredRecord): number => labwareAttrs(labware).receptacles.length;

export const aliquotCount = (labware: StoredRecord): number => labwareAttrs(labware).receptacles.reduce((n, r) => n + r.aliquots.length, 0);

/** Aliquot records. */
export function aliquotViews(labware: StoredRecord): StoredRecord[] {
  const type = receptacleType(labware.type);
  return labwareAttrs(labware).receptacles.flatMap((receptacle, i) =>
    receptacle.aliquots.map((a) =>
      viewOf(labware, {
        family: 'aliquots',
        id: aliquotId(labware.id, a.n),
        type: 'aliquots',
        uuid: '',
        attrs: {
          tag_oligo: a.tag?.oligo ?? null,
          tag_index: a.tag?.index ?? null,
          tag2_oligo: a.tag2?.oligo ?? null,
          tag2_index: a.tag2?.index ?? null,
          library_type: a.library_type,
          insert_size_to: a.insert_size_to ?? null,
        },
        rels: {
          sample: { type: 'samples', id: a.sample },
          study: a.study === null ? null : { type: 'studies', id: a.study },
          request: a.request ? { type: 'requests', id: a.request } : null,
          bait_library: a.bait_library ? { type: 'bait_libraries', id: a.bait_library } : null,
          project: a.project ? { type: 'projects', id: a.project } : null,
          library: a.library ?? null,
          receptacle: { type, id: slotId(labware.id, i + 1) },
        },
      }),
    ),
  );
}

/** Each QC result of a labware with what it measures (the labware itself, or a receptacle), in id order. */
function qcResultsIn(labware: StoredRecord): { result: QcResult; asset: Ref }[] {
  const attrs = labwareAttrs(labware);
  const type = receptacleType(labware.type);
  return [
    ...(attrs.qc_results ?? []).map((result) => ({ result, asset: { type: labware.type, id: labware.id } })),
    ...attrs.receptacles.flatMap((receptacle, i) =>
      (receptacle.qc_results ?? []).map((result) => ({ result, asset: { type, id: slotId(labware.id, i + 1) } })),
    ),
  ].sort((a, b) => a.result.n - b.result.n);
}

export const qcResultCount = (labware: StoredRecord): number => {
  const attrs = labwareAttrs(labware);
  return (attrs.qc_results?.length ?? 0) + attrs.receptacles.reduce((n, r) => n + (r.qc_results?.length ?? 0), 0);
};

/** The QC results of one receptacle, or (no slot) every result in the labware: on it and on its receptacles. */
export function qcResultRefs(labware: StoredRecord, slot?: number): Ref[] {
  const held = slot === undefined ? qcResultsIn(labware).map((h) => h.result) : (labwareAttrs(labware).receptacles[slot - 1]?.qc_results ?? []);
  return held.map((r) => ({ type: 'qc_results', id: qcResultId(labware.id, r.n) }));
}

/** QC result records. Their `created_at` is their own; as records they share their labware's timestamps, like every view. */
export function qcResultViews(labware: StoredRecord): StoredRecord[] {
  return qcResultsIn(labware).map(({ result, asset }) =>
    viewOf(labware, {
      family: 'qc_results',
      id: qcResultId(labware.id, result.n),
      type: 'qc_results',
      uuid: '',
      attrs: {
        key: result.key,
        value: result.value,
        units: result.units,
        cv: result.cv,
        assay_type: result.assay_type,
        assay_version: result.assay_version,
        created_at: result.created_at,
      },
      rels: { asset, qc_assay: { type: 'qc_assays', id: result.assay } },
    }),
  );
}

/** The transfer requests of one receptacle (those into it), or (no slot) of every receptacle of the labware, in id order. */
export function transferRequestRefs(labware: StoredRecord, slot?: number): Ref[] {
  const receptacles = labwareAttrs(labware).receptacles;
  const held = slot === undefined ? receptacles : receptacles.slice(slot - 1, slot);
  return held
    .flatMap((r) => r.transfers ?? [])
    .map((t) => ({ type: 'transfer_requests', id: transferRequestId(labware.id, t.n) }))
    .sort((a, b) => a.id - b.id);
}

export const transferRequestCount = (labware: StoredRecord): number => labwareAttrs(labware).receptacles.reduce((n, r) => n + (r.transfers?.length ?? 0), 0);

/**
 * A transfer request's uuid: derived from its labware's uuid and its number, so it is the same at every
 * read and needs no storage (a 384-well plate's transfer requests would add ~15 KB of uuids to its item).
 * It is a v4-format uuid made of a hash; the service finds a transfer request by id, not by this uuid.
 */
export function transferRequestUuid(labwareUuid: string, n: number): string {
  const h = createHash('sha256').update(`${labwareUuid}/transfer_requests/${n}`).digest('hex');
  const variant = (8 + (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The record a transfer request renders as: into the receptacle at `slot` of its labware (contract §6). */
function transferRequestView(labware: StoredRecord, slot: number, request: TransferRequest): StoredRecord {
  const type = receptacleType(labware.type);
  return viewOf(labware, {
    family: 'transfer_requests',
    id: transferRequestId(labware.id, request.n),
    type: 'transfer_requests',
    uuid: transferRequestUuid(labware.uuid, request.n),
    attrs: { state: request.state, volume: request.volume ?? null },
    rels: {
      source_asset: { type: request.sourceTube ? 'receptacles' : 'wells', id: request.source },
      target_asset: { type, id: slotId(labware.id, slot) },
      submission: request.submission ? { type: 'submissions', id: request.submission } : null,
      outer_request: request.outerRequest ? { type: 'requests', id: request.outerRequest } : null,
    },
  });
}

/** Transfer request records: those into every receptacle of the labware, in id order. */
export function transferRequestViews(labware: StoredRecord): StoredRecord[] {
  return labwareAttrs(labware)
    .receptacles.flatMap((receptacle, i) => (receptacle.transfers ?? []).map((request) => transferRequestView(labware, i + 1, request)))
    .sort((a, b) => a.id - b.id);
}
