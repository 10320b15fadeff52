import { changeVolumes, type VolumeTarget } from '#lib/domain/volumes.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { accepted, sentAt } from '#lib/jsonapi/problems.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';

/**
 * A volume update (the reference's VolumeUpdate): the record of the change and the change itself, applied
 * to the target labware's receptacles (lib/domain/volumes.ts) in the same write. The labware is read with
 * the write's references and updated on its version, so of concurrent updates each one that commits was
 * applied to the volumes the one before left (the engine runs a conflicting write again from fresh reads).
 */
export interface VolumeUpdateInput {
  attributes: { created_by?: string | null; volume_change?: number | null };
  relationships: { target?: StoredRecord | null };
  sent: Set<string>;
}

export async function createVolumeUpdate(ctx: WriteContext, input: VolumeUpdateInput): Promise<StoredRecord> {
  const target = input.relationships.target!;
  const change = input.attributes.volume_change!;
  const locate = () => sentAt(input, 'target', 'target_uuid');
  const receptacles = accepted(changeVolumes(target.type as VolumeTarget, `${target.type} ${target.id}`, labwareAttrs(target).receptacles, change), locate);
  ctx.uow.update(target, { attrs: { receptacles } });
  return ctx.uow.create('volume_updates', {
    attrs: { created_by: input.attributes.created_by!, volume_change: change, target_uuid: target.uuid },
    rels: { target: refOf(target) },
  });
}
