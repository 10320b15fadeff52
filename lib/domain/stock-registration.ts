import { createHash } from 'node:crypto';
import type { Receptacle } from '#lib/domain/labware.ts';

/**
 * Stock registration (contract §7.4; the reference's `Plate#wells.with_contents.each(&:register_stock!)`):
 * each receptacle of a labware that holds aliquots is a stock resource, registered with the samples in it,
 * each sample once with its study (the reference's WellStockResourceIo keeps one entry per sample). Pure:
 * which receptacles, which samples, and whether a registration would only repeat the labware's last one.
 */

export interface StockSample {
  sample: number;
  study: number | null;
}

/** A receptacle to register: its slot in the labware and the samples in it. */
export interface StockResource {
  slot: number;
  samples: StockSample[];
}

/** A registration: the stock resources it registers, and its digest, which the labware keeps. */
export interface StockRegistration {
  resources: StockResource[];
  digest: string;
}

/** The stock resources of a labware's receptacles (by slot): those that hold aliquots, in slot order. */
export function stockResources(receptacles: readonly Pick<Receptacle, 'aliquots'>[]): StockResource[] {
  return receptacles.flatMap((receptacle, i) => {
    const samples = new Map<number, StockSample>();
    for (const { sample, study } of receptacle.aliquots) if (!samples.has(sample)) samples.set(sample, { sample, study });
    return samples.size === 0 ? [] : [{ slot: i + 1, samples: [...samples.values()] }];
  });
}

/**
 * What registering a labware's stock now registers: every receptacle holding aliquots, as the reference
 * registers them at each call — or nothing when the labware holds none, or holds exactly what its last
 * registration registered (`registered`, that registration's digest): a repeat would tell the stock
 * warehouse nothing new, and of concurrent registrations of one plate exactly one then registers.
 */
export function stockToRegister(receptacles: readonly Pick<Receptacle, 'aliquots'>[], registered: string | undefined): StockRegistration {
  const resources = stockResources(receptacles);
  const digest = createHash('sha256').update(JSON.stringify(resources)).digest('base64url');
  return resources.length === 0 || digest === registered ? { resources: [], digest } : { resources, digest };
}
