import * as z from '#lib/zod.ts';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { parseWriteDocument } from '#lib/jsonapi/document.ts';
import { resourceUrl } from '#lib/jsonapi/render.ts';
import {
  attr,
  defineResource,
  lazySchema,
  timestamps,
  toOne,
  uuidAttribute,
  uuidFilter,
  type ActionResult,
  type AttributeDef,
  type ResourceDef,
  type WriteActionDef,
} from '#lib/jsonapi/resource.ts';
import { validateValues } from '#lib/jsonapi/write.ts';
import { receivePlate, receiveTubeRack, type Received, type ReceptionInput } from '#lib/operations/heron-reception.ts';
import { barcodeInput } from '#lib/resources/labware.ts';
import { text } from '#lib/resources/reference.ts';

/**
 * The reference's Heron reception endpoints (app/controllers/api/v2/heron/*): lighthouse posts a plate
 * (or a rack of tubes) with its samples by coordinate to `POST /api/v2/heron/plates` (`/tube_racks`), and
 * a rack's status to `/tube_rack_statuses`. They are no JSON:API resources in the reference: each takes
 * `{data: {attributes: …}}` and answers a shape of its own. Here they are the actions of a type `heron`
 * that serves nothing else, so each runs in the write pipeline of every write (API key, one write, retries
 * after a conflict, Idempotency-Key, events) and answers the reference's shape (docs/decisions.md, "Heron
 * reception").
 */

/**
 * The body each endpoint takes, read as a write document of a type of these attributes: the engine's own
 * parsing then points at each member it refuses. `data.type` is what lighthouse sends, or none (the
 * reference reads no type).
 */
const bodyOf = (type: string, attributes: Record<string, AttributeDef>): ResourceDef => ({
  type,
  methods: ['create'],
  attributes,
  relationships: {},
  filters: {},
});
const object = lazySchema(() => z.record(z.string(), z.unknown()));

const labwareBody = (recipients: 'wells' | 'tubes') => ({
  barcode: attr('W', barcodeInput),
  purpose_uuid: attr('W', text),
  study_uuid: attr('W', text),
  [recipients]: attr('W', object),
});
const PLATE_BODY = bodyOf('plates', { ...labwareBody('wells'), events: attr('W', () => z.array(z.unknown())) });
const RACK_BODY = bodyOf('tube_racks', labwareBody('tubes'));
const STATUS_BODY = bodyOf('tube_rack_statuses', {
  tube_rack_status: attr('W', () =>
    z.object({
      tube_rack: z.object({ barcode: barcodeInput(), status: text(), messages: z.array(z.string()).check(z.minLength(1, "can't be blank")) }),
    }),
  ),
});

function attributesOf(ctx: WriteContext, def: ResourceDef, body: unknown): Record<string, unknown> {
  return validateValues(def, parseWriteDocument(ctx.registry, def, body, 'create', undefined, ['']));
}

/**
 * The reference's answer to a reception: the labware's uuid, its purpose's name and its samples' studies'
 * names, linked to the labware. JSON:API wants a type and an id, which the reference leaves out: the answer
 * is a resource object of type `heron` named by the action, as an answering action's is (lib/jsonapi/engine.ts).
 */
function receptionAnswer(ctx: WriteContext, action: string, { labware, purpose, studyNames }: Received): ActionResult {
  return {
    status: 201,
    data: labware,
    reply: {
      data: {
        type: 'heron',
        id: action,
        attributes: { uuid: labware.uuid, purpose_name: purpose.attrs.name, study_names: studyNames },
        links: { self: resourceUrl(ctx, labware.type, labware.id) },
      },
    },
  };
}

const reception = (
  action: string,
  def: ResourceDef,
  recipients: 'wells' | 'tubes',
  receive: (ctx: WriteContext, input: ReceptionInput) => Promise<Received>,
): WriteActionDef => ({
  method: 'POST',
  // lighthouse posts with `requests.post(json=…)`: Content-Type application/json (lighthouse/helpers/plates.py).
  acceptsJson: true,
  document: { body: def },
  run: async (ctx, body) => {
    const { [recipients]: given, ...attributes } = attributesOf(ctx, def, body) as ReceptionInput & Record<string, unknown>;
    return receptionAnswer(ctx, action, await receive(ctx, { ...attributes, recipients: given as ReceptionInput['recipients'] }));
  },
});

export const heron = defineResource({
  type: 'heron',
  methods: [],
  // The receptions' answer (receptionAnswer): no record of this type is ever stored.
  attributes: {
    uuid: attr('R', () => z.uuid()),
    purpose_name: attr('R', text),
    study_names: attr('R', () => z.array(z.string())),
  },
  relationships: {},
  filters: {},
  actions: {
    plates: reception('plates', PLATE_BODY, 'wells', receivePlate),
    tube_racks: reception('tube_racks', RACK_BODY, 'tubes', receiveTubeRack),
    tube_rack_statuses: {
      method: 'POST',
      acceptsJson: true,
      document: { body: STATUS_BODY, answers: 'tube_rack_statuses' },
      // The reference answers `{}`, which is no JSON:API document: here the status it made, as a record of tube_rack_statuses.
      run: async (ctx, body) => {
        const { tube_rack_status } = attributesOf(ctx, STATUS_BODY, body) as {
          tube_rack_status: { tube_rack: { barcode: string; status: string; messages: string[] } };
        };
        const { barcode, status, messages } = tube_rack_status.tube_rack;
        const record = await ctx.uow.create('tube_rack_statuses', { attrs: { barcode, status, messages }, rels: { labware: null } });
        return { status: 201, data: record };
      },
    },
  },
});

/**
 * The statuses of racks received (the reference's TubeRackStatus): `created` for each rack a Heron
 * reception makes, or what lighthouse reports at `heron/tube_rack_statuses`. The reference's resource
 * renders its uuid only; the status itself is served too, read-only.
 */
export const tubeRackStatuses = defineResource({
  type: 'tube_rack_statuses',
  methods: ['list', 'read'],
  attributes: {
    ...uuidAttribute,
    barcode: attr('R', text),
    status: attr('R', text),
    messages: attr('R', () => z.array(z.string())),
    ...timestamps,
  },
  relationships: { labware: toOne('tube_racks', 'R') },
  filters: { uuid: uuidFilter },
});
