import type { LabwareBarcode } from '#lib/domain/barcode.ts';
import type { QcResult } from '#lib/domain/qc-results.ts';
import { derivedState, TRANSFER_REQUEST_STATES, type TransferRequestState } from '#lib/domain/transfer-requests.ts';

/**
 * Labware as the lab sees it: a plate, tube or rack with its receptacles, each receptacle a value of its
 * own. The whole aggregate is one stored item (lib/resources/labware-views.ts renders its parts as wells,
 * receptacles and aliquots; lib/domain/labware-ids.ts gives them ids), so a change anywhere inside a plate
 * is one conditional write of the plate, and creating a 384-well plate is one item.
 *
 * What hangs on a receptacle but grows without bound lives outside the aggregate, so that a plate's item
 * stays within its budget (lib/domain/budgets.ts): the requests out of a receptacle are records of their
 * own, found through an index keyed by their labware (one query per labware, however many wells). QC
 * results are few per receptacle and written a plate at a time, so they live inside it
 * (lib/domain/qc-results.ts), within the record's byte budget.
 */

export interface Tag {
  oligo: string;
  index: number;
}

/** A portion of one sample in a receptacle. */
export interface Aliquot {
  /** Counts the aliquots its labware ever held; the aliquot's id derives from it. */
  n: number;
  sample: number;
  study: number | null;
  tag: Tag | null;
  tag2: Tag | null;
  library_type: string | null;
  /**
   * The outer request: the work this material is bound for (contract §6). Set when a transfer request copies
   * the aliquot (its outer request, else the source aliquot's own); absent on aliquots made in place.
   */
  request?: number | null;
  /** The bait library a bait library layout gave it (lib/domain/bait-layout.ts); copies carry it on. */
  bait_library?: number;
  /** The project it was made for, when its POST named one (a control: contract §7.4); copies carry it on. */
  project?: number;
  /**
   * The receptacle its library was made in, when its POST named one (the reference's `library`: a library
   * tube's receptacle for the aliquots of a multiplexed library); copies carry it on, so a pool's aliquots
   * still name each library they came from.
   */
  library?: { type: 'wells' | 'receptacles'; id: number };
  /** The largest insert size of its library (the reference's `insert_size_to`), when its POST gave one; copies carry it on. */
  insert_size_to?: number;
}

/** An aliquot before its labware numbers it. */
export type AliquotContent = Omit<Aliquot, 'n'>;

/** The states of a receptacle: those of the transfer request machine (reference-behaviour.md §7.1, lib/domain/machines.ts). */
export const RECEPTACLE_STATES = TRANSFER_REQUEST_STATES;
export type ReceptacleState = TransferRequestState;

/**
 * A transfer request (contract §6): material moved from a source receptacle into the receptacle that holds
 * it, and how far the work on that material got. It lives in its target's aggregate, so a plate's state
 * change is one conditional write of the plate however many wells it moves; its id derives from its
 * labware's (`transferRequestId(labware, n)`, lib/domain/labware-ids.ts).
 */
export interface TransferRequest {
  /** Counts the transfer requests its labware ever received (`transferRequestCount`); the id derives from it. */
  n: number;
  /** The source receptacle's id (a well or a tube's receptacle, lib/domain/labware-ids.ts). */
  source: number;
  /** Set when the source is a tube's receptacle; absent for a well (most are: it keeps a 384-well plate's item small). */
  sourceTube?: true;
  state: TransferRequestState;
  /** The submission the material is worked on for (its pool), carried along from the source; absent when none. */
  submission?: number;
  /** The request of that submission the material is bound for (the aliquots copied carry it); absent when none. */
  outerRequest?: number;
  /** Microlitres moved, when the client said. */
  volume?: number;
}

/** A well of a plate, or the inside of a tube. */
export interface Receptacle {
  state: ReceptacleState;
  aliquots: Aliquot[];
  /** Transfer requests into it, oldest first; absent while there are none, which keeps an empty 384-well plate small. */
  transfers?: TransferRequest[];
  /** QC results measured on it, oldest first; absent while there are none. */
  qc_results?: QcResult[];
  /** Its current volume in microlitres, as volume updates left it (lib/domain/volumes.ts); absent while never recorded. */
  volume?: number;
}

/** A tube held by a rack, at a coordinate of the rack's grid. */
export interface RackedTube {
  coordinate: string;
  tube: number;
}

/** A labware record's stored attributes: the aggregate. */
export interface Labware {
  name: string | null;
  barcode: LabwareBarcode;
  state: string;
  /** Plates and racks. */
  size?: number;
  /** Receptacles by slot: `receptacles[slot - 1]` (wells in column order; a tube has one, a rack none). */
  receptacles: Receptacle[];
  /** Aliquots ever added, so that a new one is numbered `aliquotCount + 1`. */
  aliquotCount: number;
  /** Transfer requests ever received, so that a new one is numbered `transferRequestCount + 1`; absent while none. */
  transferRequestCount?: number;
  /** Racks: the tubes they hold. */
  racked?: RackedTube[];
  /** A tube in a rack: the slot of its coordinate in the rack (the rack itself is the tube's `tube_rack` link). */
  rackSlot?: number | null;
  /** A tube made by a "by submission" transfer to pool a submission's material: that submission (one such tube each). */
  poolTube?: number;
  /** QC results of the labware as a whole (a plate measured without a well); absent while there are none. */
  qc_results?: QcResult[];
  /** QC results ever recorded in it (on it or its receptacles), so that a new one is numbered `qcResultCount + 1`. */
  qcResultCount?: number;
  /** Ids of its state changes (records of their own), oldest first: its `state_changes` relationship, read with it; absent while none. */
  stateChanges?: number[];
  /**
   * The user who last made it, moved material into it or tagged it (the reference's plate owner, which its
   * searches find by `user_uuid`); absent while nobody has (a plate POSTed without a user).
   */
  owner?: number;
  /** Plates: ids of the transfers (records of their own) whose destination it is, oldest first: its `transfers_as_destination`; absent while none. */
  transfersAsDestination?: number[];
  /** Plates: what their last stock registration registered (lib/domain/stock-registration.ts, its digest); absent while never registered. */
  stockRegistered?: string;
}

/**
 * What the receptacle rules change: the receptacles and the counts that number aliquots and transfer
 * requests (so they also serve labware still being made). Taken from a labware whole (`contentsOf`): a count
 * left behind would number again from 1, and two transfer requests (or aliquots) of the labware would share an id.
 */
export type Contents = Pick<Labware, 'receptacles' | 'aliquotCount' | 'transferRequestCount'>;

/** A labware's contents, with both its counts. */
export const contentsOf = ({ receptacles, aliquotCount, transferRequestCount }: Contents): Contents => ({
  receptacles,
  aliquotCount,
  ...(transferRequestCount === undefined ? {} : { transferRequestCount }),
});

export const emptyReceptacle = (): Receptacle => ({ state: 'pending', aliquots: [] });

/** The receptacles of new labware: `count` empty ones (a plate's size, one for a tube). */
export const emptyReceptacles = (count: number): Receptacle[] => Array.from({ length: count }, emptyReceptacle);

/** The receptacle in a slot; a slot the labware does not have is a caller's mistake. */
export function receptacleAt(labware: Pick<Labware, 'receptacles'>, slot: number): Receptacle {
  const receptacle = labware.receptacles[slot - 1];
  if (!receptacle) throw new RangeError(`slot ${slot} is not a receptacle of this labware (it has ${labware.receptacles.length})`);
  return receptacle;
}

/** The labware with one receptacle replaced. */
export const withReceptacle = <L extends Pick<Labware, 'receptacles'>>(labware: L, slot: number, receptacle: Receptacle): L => ({
  ...labware,
  receptacles: labware.receptacles.map((r, i) => (i === slot - 1 ? receptacle : r)),
});

/**
 * A receptacle's state (reference-behaviour.md §7.2): derived from the transfer requests into it, so it can
 * never disagree with them; with none, the state it was made with (`pending`).
 */
export const receptacleState = (receptacle: Pick<Receptacle, 'transfers' | 'state'>): string =>
  derivedState(
    (receptacle.transfers ?? []).map((t) => t.state),
    receptacle.state,
  );

/**
 * A labware's state (reference-behaviour.md §7.2): derived from the transfer requests into any of its
 * receptacles (receptacles with none do not count); with none, the state it was made with (its purpose's
 * default, `pending`).
 */
export const labwareState = (labware: Pick<Labware, 'receptacles' | 'state'>): string =>
  derivedState(
    labware.receptacles.flatMap((r) => (r.transfers ?? []).map((t) => t.state)),
    labware.state,
  );
