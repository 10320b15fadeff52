import type { Problem } from '#lib/domain/problems.ts';

/**
 * Budgets: how much one write may hold. A write that fits one DynamoDB transaction (100 items, 4 MB) is
 * one transaction; a larger one is staged in several and is still one write, all or nothing
 * (lib/store/large-write.ts), up to the bound of one request: LARGE_WRITE_ITEM_LIMIT records and index
 * entries, LARGE_WRITE_SIZE_LIMIT bytes. Each lab operation counts what it will write (the functions
 * below) and asks `withinRequest` before writing anything: past the bound, an `over_budget` problem, a
 * 422 `too_large` naming the bound and the count (lib/jsonapi/problems.ts). The store refuses what no
 * operation counted (bytes, which it measures item by item) before its first write (lib/store/unit-of-work.ts).
 * Sizes are JSON bytes: DynamoDB's own measure of the same item is smaller, so each byte budget keeps a
 * margin. What bounds one item (a receptacle's aliquots, a record's bytes) stays whatever the write's size.
 * docs/decisions.md ("Labware aggregate, lineage and item budgets") has the measured sizes behind each number.
 */

/** Items one transaction may write: DynamoDB's limit. */
export const TRANSACTION_ITEM_LIMIT = 100;

/** JSON bytes one transaction may write: DynamoDB allows 4 MiB (4,194,304 bytes); the rest is room for keys and index attributes. */
export const TRANSACTION_SIZE_LIMIT = 4_000_000;

/**
 * The bound of one request: records and index entries one write may create, change or delete. Past one
 * transaction a write is staged in several (lib/store/large-write.ts): ~2 calls per 100 items, each item
 * written twice (staged, then applied). It must answer within its request's budget (25 s,
 * LTS_REQUEST_BUDGET_MS, under API Gateway's 29 s), and within the engine's conflict window (three
 * quarters of it) leave time to start again once. Measured on DynamoDB Local on the shared 2-core machine
 * (load ~6.5): 4,000 items took 7.6–11.6 s, 1,600 took 2.9–7.3 s (~350 items/s at worst; docs/measurements.md,
 * "Writes past one transaction"). So 4,000: one attempt in half the budget there; on AWS, where a
 * transaction of 100 items takes tens of milliseconds, a few seconds. Every size contract §7.1 names fits
 * (400 poly metadata are 1,600; a transfer into 384 new tubes ~1,150).
 */
export const LARGE_WRITE_ITEM_LIMIT = 4_000;

/**
 * The bound of one request in JSON bytes. Bytes cost little time (14 MB of records took 2.3 s, 5.6 MB
 * 0.8–2.3 s, on DynamoDB Local as above): what bounds them is memory and what the answer carries. A
 * write's response must fit Lambda's 6 MB — the response middleware gzips past it, else refuses
 * (lib/http/response-size.ts) — but most of what a write stores (labware aggregates, request books) is not
 * in its answer, and its events and stored response are chunked whatever their size
 * (lib/store/request-payload.ts); so the bound is four transactions' worth, 16 MB, an eighth of the time budget.
 */
export const LARGE_WRITE_SIZE_LIMIT = 16_000_000;

/** JSON bytes of one record: DynamoDB allows 400 KB an item; the rest is room for keys, index attributes and DynamoDB's per-attribute overhead. */
export const ITEM_SIZE_LIMIT = 380_000;

/**
 * JSON bytes of an after-image a changed record's own item carries while a write past one transaction
 * holds it (lib/store/large-write.ts), provided the record as it is and its image fit ITEM_SIZE_LIMIT
 * together. A tube (1–2 KB) carries its own; a larger record (a plate) has its after-image in an item
 * beside it, so that a marked item read meanwhile (and its copy in the index that projects whole items)
 * stays near its own size.
 */
export const INLINE_AFTER_IMAGE_BYTES = 8_000;

/**
 * Whether a changed record's own item carries its after-image (INLINE_AFTER_IMAGE_BYTES), given the JSON
 * bytes of the image and of the record as it is — measured only for an image small enough (a plate's
 * record is not serialized to learn that its image goes beside it).
 */
export const carriesAfterImage = (imageBytes: number, recordBytes: () => number): boolean =>
  imageBytes <= INLINE_AFTER_IMAGE_BYTES && recordBytes() + imageBytes <= ITEM_SIZE_LIMIT;

/**
 * Payload bytes (events and idempotent response) a request item carries inside its transaction. Larger
 * payloads are compressed, and if still larger stored in chunk items written just before the transaction
 * (lib/store/request-payload.ts): a write's record of itself never costs it more than this share of the
 * transaction, nor an item of its item budget.
 */
export const REQUEST_PAYLOAD_INLINE_BYTES = 64_000;

/**
 * Plate sizes, smallest first: the strips of 8 and 16 wells of the reference's chip shapes
 * (lib/domain/purposes.ts), 96 and 384. 384 is the largest plate: a 1536-well plate is refused (a plate
 * purpose of that size is refused), since receptacle ids leave room for 999 slots per labware
 * (lib/domain/labware-ids.ts) and an empty 1536-well plate would already take ~50 KB of its item.
 */
export const PLATE_SIZES = [8, 16, 96, 384] as const;

/** Tube rack sizes (6 × 8 and 8 × 12 positions). */
export const RACK_SIZES = [48, 96] as const;

/**
 * The largest pool: aliquots one receptacle may hold. Four 384-well plates pooled into one tube, with
 * dual 10-base tags and one transfer request per source well, is ~280 KB, 73 % of ITEM_SIZE_LIMIT
 * (test/unit/budgets.test.ts); this keeps a tube's item below its limit whatever is pooled into it.
 */
export const MAX_ALIQUOTS_PER_RECEPTACLE = 1_536;

/** What one write puts into DynamoDB: the records it creates or changes, their index items, and the id families whose counts change. */
export interface WriteShape {
  records: number;
  indexItems: number;
  /** One count shard per family whose record counts change (lib/store/counts.ts). */
  countedFamilies: number;
}

/**
 * The items of a write as one transaction: its records, their index items, one count shard per counted
 * family, and the request item (events, idempotent response); without the write's audit entries, which
 * auditedTransactionItems adds. Up to TRANSACTION_ITEM_LIMIT with them it is one TransactWriteItems, as
 * every write was before large writes (and still is when it fits).
 */
export const transactionItems = (write: WriteShape): number => write.records + write.indexItems + write.countedFamilies + 1;

/**
 * The items of a write as one transaction with its audit trail: transactionItems and one audit entry per
 * labware the write touched (lib/jsonapi/audit.ts; docs/decisions.md, "Audit trail"). The request bound does
 * not count the entries (writtenItems, as the store), but whether the write is one transaction does. The
 * item counts in the comments below are without them unless they say so; every "one transaction holds" counts them.
 */
export const auditedTransactionItems = (write: WriteShape, labwareTouched: number): number => transactionItems(write) + labwareTouched;

/** The most of a write's unit (tubes, plates, qcables) one transaction holds: the largest n whose items, `itemsOf(n)`, fit. */
export function mostInOneTransaction(itemsOf: (n: number) => number): number {
  let n = 0;
  while (itemsOf(n + 1) <= TRANSACTION_ITEM_LIMIT) n++;
  return n;
}

/** What the request bound counts of a write: its records and index entries (the store counts the same, lib/store/unit-of-work.ts). */
export const writtenItems = (write: WriteShape): number => write.records + write.indexItems;

/**
 * The one check of a lab operation's size against the bound of one request (contract §7.1): none, or an
 * `over_budget` problem at `input` naming what is written (`what`: "96 tubes from 1 parent(s)"), its count
 * and the bound. Asked before anything is written; whether the write is one transaction or several is the
 * store's to decide.
 */
export function withinRequest(write: WriteShape, what: string, input: readonly string[] = []): Problem[] {
  const items = writtenItems(write);
  if (items <= LARGE_WRITE_ITEM_LIMIT) return [];
  return [
    {
      code: 'over_budget',
      input,
      detail: `${what} would write ${items} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
    },
  ];
}

/**
 * A plate pooled into tubes it creates (by submission): the transfer record, and per tube the tube, its
 * barcode guard, its link to the plate and its submission's pool-tube guard (one pool tube per submission);
 * count shards of labware and transfers. A tube made before and filled again is one item. With an audit
 * entry for the plate and each tube, one transaction holds 19 new tubes; a 384-well plate into 384 tubes is 1,537 records and index entries, within the bound.
 */
export const poolingItems = (tubes: number): WriteShape => ({ records: 1 + tubes, indexItems: 3 * tubes, countedFamilies: 2 });

/**
 * A transfer request collection (POST transfer_request_collections): its record, one conditional update
 * per target labware (its receptacles gain the transfer requests and the copies), one index item per new
 * link of a target to a source's labware (lineage); count shards of labware and of collections. A stamp of
 * a plate into a new plate is 6 items, whatever its wells; filling new tubes from one plate costs 2 items
 * a tube, 3 with its audit entry (one transaction holds 31; 384 new tubes are 769 records and index entries).
 */
export const transferRequestCollectionItems = (targets: number, newLinks: number): WriteShape => ({
  records: 1 + targets,
  indexItems: newLinks,
  countedFamilies: 2,
});

/**
 * Entries one transfer request collection may hold (an input cap, whatever they write): every well of
 * four 384-well plates (the largest pool, MAX_ALIQUOTS_PER_RECEPTACLE).
 */
export const MAX_TRANSFER_REQUESTS_PER_COLLECTION = 1_536;

/**
 * A bulk transfer (POST bulk_transfers): its record, one conditional update per destination plate, one
 * transfer record per (source, destination) pair of plates (the reference's Transfer::BetweenPlates), one
 * index item per new link of a destination to a source plate; count shards of labware, bulk transfers and
 * transfers. Four plates pooled into one is 14 items, whatever their wells; one source into 23 plates 98
 * with an audit entry for each plate.
 */
export const bulkTransferItems = (destinations: number, pairs: number, newLinks: number): WriteShape => ({
  records: 1 + destinations + pairs,
  indexItems: newLinks,
  countedFamilies: 3,
});

/** Well transfers one bulk transfer may hold: as a collection's entries, every well of four 384-well plates. */
export const MAX_WELL_TRANSFERS_PER_BULK_TRANSFER = MAX_TRANSFER_REQUESTS_PER_COLLECTION;

/**
 * Poly metadata created together (`poly_metadata/bulk_create`): per metadatum its record and three index
 * items — its key's guard, its entries under its record's aggregate (the records' `poly_metadata`) and
 * under its record's id (`filter[metadatable_id]`); `key` and `metadatable_type` are lookup slots, which
 * cost none — and one count shard.
 */
export const polyMetadataItems = (metadata: number): number => transactionItems({ records: metadata, indexItems: 3 * metadata, countedFamilies: 1 });

/** Items each metadatum adds to its write. */
export const POLY_METADATUM_ITEMS = polyMetadataItems(1) - polyMetadataItems(0);

/**
 * The most poly metadata one write may create: past one transaction's 24 (on one labware, with its audit entry) the write is staged in several
 * (lib/store/large-write.ts), up to LARGE_WRITE_ITEM_LIMIT records and index entries, 4 each.
 */
export const MAX_POLY_METADATA_PER_WRITE = Math.floor(LARGE_WRITE_ITEM_LIMIT / POLY_METADATUM_ITEMS);

/**
 * A QC assay (POST qc_assays): the assay record and one update per labware its results go into (results
 * live inside their labware, lib/domain/qc-results.ts), count shards of QC assays and of labware (which
 * counts the QC results in it), the request item. A 96-well plate-reader upload is 5 items, however many
 * results; with an audit entry for each tube, one transaction holds results in 48 tubes.
 */
export const qcAssayItems = (labware: number): WriteShape => ({ records: 1 + labware, indexItems: 0, countedFamilies: 2 });

/**
 * The most QC results one assay may record: four for each well of a 384-well plate. As plate readers
 * send them (~190 JSON bytes each) that is ~290 KB in one plate's record, within ITEM_SIZE_LIMIT
 * (test/unit/budgets.test.ts); whatever the upload, a labware record past ITEM_SIZE_LIMIT is refused.
 */
export const MAX_QC_RESULTS_PER_ASSAY = 1_536;

/**
 * A labware's state change (POST state_changes): the labware (a rack: the rack and each tube it changes),
 * the request book of each (submission, labware) whose requests it moves (lib/domain/request-books.ts),
 * the state change record, the state changes' count shard and the request item. The labware lists the
 * change in its own item, so the change has no index item. A plate's first pass starts the outer requests
 * of its wells, all in the stock plate's one book of their submission: 5 items for a 96- or a 384-well
 * plate. A rack of 96 tubes moving no request is 100 items, 197 with an audit entry for the rack and each
 * tube: past one transaction.
 */
export const stateChangeItems = (labware: number, books: number): WriteShape => ({ records: labware + books + 1, indexItems: 0, countedFamilies: 1 });

/**
 * A work completion (POST work_completions): its record, the request book of each (submission, labware)
 * whose requests it changes (passed, linked to their target receptacle, next requests moved onto it), the
 * index entries the books gain or lose (a book is indexed once under each labware its requests' assets are
 * in: moving next requests into new labware adds one), the work completions' count shard and the request
 * item. A 96-well plate's library requests with their next requests, one submission: 5 items.
 */
export const workCompletionItems = (books: number, indexEntries: number): WriteShape => ({
  records: 1 + books,
  indexItems: indexEntries,
  countedFamilies: 1,
});

/**
 * Stored bytes of a QC file's contents: gzip, then base64 (lib/domain/qc-files.ts), inside the file's own
 * record, whose other fields take under 1 KB: within ITEM_SIZE_LIMIT. Text files compress 4 to 10 times, so
 * every text a request body can carry (1 MiB, MAX_BODY_BYTES) usually fits; what does not is a 422 naming this.
 */
export const QC_FILE_STORED_BYTES = 360_000;

/** Characters of a QC result's texts (key, value, units, cv, assay type and version): what the reference stores. */
export const QC_TEXT_MAX = 255;

/**
 * A labware creator (plate, pooled plate, tube and specific tube creations: contract §6): the creation
 * record; per labware it makes, the labware, its barcode guard and one link per parent (lineage: the
 * parents are not written); count shards of labware and of the creations. A plate from one parent is 7
 * items, a pooled plate from four 384-well plates 10 (an empty plate is one item, whatever its wells);
 * with an audit entry for each labware made and each parent, one transaction holds 23 tubes from one
 * parent; 96 tubes are 289 records and index entries.
 */
export const labwareCreationItems = (labware: number, parents: number): WriteShape => ({
  records: 1 + labware,
  indexItems: labware * (1 + parents),
  countedFamilies: 2,
});

/**
 * A rack creation (specific_tube_rack_creations): the creation record; per rack, the rack, its barcode
 * guard and one link per parent; per new tube, the tube (which records its rack) and its barcode guard;
 * per existing tube it racks, the tube (the tubes are the racks', not the parents' children, as in the
 * reference); count shards of labware and of the creations. With an audit entry for the rack, each tube and
 * the plate, one transaction holds a rack of 30 new tubes from one plate; Limber's plate split into two racks of 96 new tubes, 391 records and index entries.
 */
export const rackCreationItems = (racks: number, tubes: number, parents: number, existing = 0): WriteShape => ({
  records: 1 + racks + tubes + existing,
  indexItems: racks * (1 + parents) + tubes,
  countedFamilies: 2,
});

/**
 * A qcable creator (POST qcable_creators): its record; per qcable, its new labware with its barcode guard,
 * and the qcable with its three index entries (its labware's guard, its lot, its barcode); count shards of
 * labware, qcables and qcable creators. With their audit entries (one per qcable's labware) 13 qcables are one transaction; gatekeeper's 96 tag plates are 577
 * records and index entries, staged past one (lib/store/large-write.ts).
 */
export const qcableCreatorItems = (qcables: number): WriteShape => ({ records: 1 + 2 * qcables, indexItems: 4 * qcables, countedFamilies: 3 });

/** Items each qcable adds to its creator's write. */
const QCABLE_ITEMS = writtenItems(qcableCreatorItems(1)) - writtenItems(qcableCreatorItems(0));

/** The most qcables one creator may make: as many as the bound of one request holds (666). */
export const MAX_QCABLES_PER_CREATOR = Math.floor((LARGE_WRITE_ITEM_LIMIT - writtenItems(qcableCreatorItems(0))) / QCABLE_ITEMS);

/**
 * A Heron reception (lib/operations/heron-reception.ts): per labware (the plate, or the rack and each
 * tube) the record and its barcode guard; the rack's status record; per new sample its record, its
 * metadata record, and its name guard, sanger sample id entry and uuid alias entry when given (a name and
 * a sanger sample id are made when the study has an abbreviation); counts of labware, samples, sample
 * metadata and statuses. A 96-well plate of 96 new samples is 482 records and entries at most: past one
 * transaction, within one request.
 */
export const heronReceptionItems = (labware: number, newSamples: number): WriteShape => ({
  records: 1 + labware + 2 * newSamples,
  indexItems: labware + 3 * newSamples,
  countedFamilies: 4,
});
