import { labwareCreationItems, withinRequest } from '#lib/domain/budgets.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { accepted, sentAt, throwProblems, type Locate } from '#lib/jsonapi/problems.ts';
import type { WriteInput } from '#lib/jsonapi/resource.ts';
import { relValue } from '#lib/jsonapi/write.ts';
import { checkGivenBarcodes, createLabware, emptyPlateOf, emptyTube, reserveLabware } from '#lib/operations/labware-factory.ts';
import { parentsOf } from '#lib/operations/labware-records.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * Labware made or remade from other labware without moving material (lib/resources/labware-creations.ts;
 * reference-behaviour.md §2.5, §2.6): plate conversions, the one-child creators, specific tube creations.
 * Each checks its size against the bound of one request, then writes the labware it makes or changes through the
 * labware factory (lib/operations/labware-factory.ts), never the parent, which finds its children through
 * the lineage index, and its own record.
 */

/** A plate cannot be its own parent: the problem concerns the `parent` sent. */
const parentAt: Locate = () => ({ pointer: '/data/relationships/parent', field: 'parent' });

/** A plate conversion's write input. */
interface ConversionInput {
  relationships: { parent?: StoredRecord | null; purpose?: StoredRecord | null; target?: StoredRecord | null; user?: StoredRecord | null };
}

/** The target plate takes the purpose; with a parent, it becomes the parent's child. */
export function convertPlate(ctx: WriteContext, input: ConversionInput): Promise<StoredRecord> {
  const { parent, purpose, target, user } = input.relationships;
  const parents = parent ? accepted(linkParents(refOf(target!), parentsOf(target!), [refOf(parent)]), parentAt) : parentsOf(target!);
  ctx.uow.update(target!, { attrs: { owner: user!.id }, rels: { purpose: refOf(purpose!), parents } });
  return ctx.uow.create('plate_conversions', {
    attrs: {},
    rels: { parent: relValue(parent), purpose: refOf(purpose!), target: refOf(target!), user: refOf(user!) },
  });
}

/**
 * Refuses a creation whose new labware would be more than one request may write (lib/domain/budgets.ts),
 * before anything is written: a 422 at what makes it that large, naming the count and the bound.
 */
const withinOneRequest = (labware: number, parents: number, at: { pointer: string; field: string }, what: string): void =>
  throwProblems(withinRequest(labwareCreationItems(labware, parents), `${labware} ${what} from ${parents} parent(s)`), () => at);

/**
 * A creation's own id, reserved beside its labware's ids and barcode numbers rather than after them: one
 * round trip to DynamoDB fewer on the way to the commit (an unused id is simply skipped).
 */
export const creationId = async (ctx: WriteContext, type: string): Promise<number> => (await ctx.uow.allocateIds(ctx.registry.familyOf(type), 1))[0]!;

/** What a one-child creator is: its type, what it makes, and the relationship (and `*_uuid(s)` attribute) naming its parents. */
export interface ChildCreator {
  type: string;
  child: 'plates' | 'tubes';
  parents: string;
  parentsAttribute: string;
}

/**
 * One new, empty labware (`child`) of the child purpose, a child of every parent, owned by the user; it
 * moves no material (the transfer that follows does). Plates take their purpose's size.
 */
export async function createChild(ctx: WriteContext, { type, child, parents: name, parentsAttribute }: ChildCreator, input: WriteInput): Promise<StoredRecord> {
  const purpose = input.relationships.child_purpose as StoredRecord;
  const user = input.relationships.user as StoredRecord;
  const named = input.relationships[name] as StoredRecord | StoredRecord[];
  const from = ([] as StoredRecord[]).concat(named);
  withinOneRequest(1, from.length, sentAt(input, name, parentsAttribute), child === 'plates' ? 'plate' : 'tube');
  const contents = child === 'plates' ? emptyPlateOf(purpose) : emptyTube();
  const [[reserved], id] = await Promise.all([reserveLabware(ctx, 1), creationId(ctx, type)]);
  const made = await createLabware(ctx, child, { purpose, ...contents, parents: from.map(refOf), owner: user.id }, reserved);
  return ctx.uow.create(type, { id, attrs: {}, rels: { child: refOf(made), child_purpose: refOf(purpose), [name]: relValue(named), user: refOf(user) } });
}

/** A specific tube creation's write input. */
interface SpecificTubesInput extends Pick<WriteInput, 'sent'> {
  attributes: { tube_attributes?: readonly ({ name?: string | null; foreign_barcode?: string | null } | null)[] | null };
  relationships: { child_purposes?: StoredRecord[] | null; parents?: StoredRecord[] | null; user?: StoredRecord | null };
}

/** One new, empty tube per child purpose, the n-th named by the n-th `tube_attributes` entry, each a child of every parent. */
export async function createSpecificTubes(ctx: WriteContext, input: SpecificTubesInput): Promise<StoredRecord> {
  const { child_purposes: purposes, parents, user } = input.relationships;
  withinOneRequest(purposes!.length, parents!.length, sentAt(input, 'child_purposes', 'child_purpose_uuids'), 'tubes');
  const named = input.attributes.tube_attributes ?? [];
  await checkGivenBarcodes(
    ctx,
    named.flatMap((tube, i) => (tube?.foreign_barcode ? [{ barcode: tube.foreign_barcode, input: ['tube_attributes', String(i), 'foreign_barcode'] }] : [])),
  );
  const [reserved, id] = await Promise.all([reserveLabware(ctx, purposes!.length), creationId(ctx, 'specific_tube_creations')]);
  const children = await Promise.all(
    purposes!.map((purpose, i) =>
      createLabware(
        ctx,
        'tubes',
        {
          purpose,
          name: named[i]?.name ?? null,
          ...(named[i]?.foreign_barcode ? { barcode: named[i].foreign_barcode } : {}),
          parents: parents!.map(refOf),
          ...emptyTube(),
          owner: user!.id,
        },
        reserved[i],
      ),
    ),
  );
  return ctx.uow.create('specific_tube_creations', {
    id,
    attrs: {},
    rels: { children: children.map(refOf), child_purposes: purposes!.map(refOf), parents: parents!.map(refOf), user: refOf(user!) },
  });
}
