import { describe, expect, it } from 'vitest';
import type { Aliquot } from '#lib/domain/labware.ts';
import { stockResources, stockToRegister } from '#lib/domain/stock-registration.ts';

/** An aliquot of `sample` (of `study`), tagged with `tag` so two of one sample can share a receptacle. */
const aliquot = (n: number, sample: number, study: number | null = 7, tag: number | null = null): Aliquot => ({
  n,
  sample,
  study,
  tag: tag === null ? null : { oligo: 'ACGT', index: tag },
  tag2: null,
  library_type: null,
});

describe('stock resources (the reference WellStockResourceIo, one per receptacle with contents)', () => {
  it('lists the receptacles holding aliquots, in slot order, each sample once with its study', () => {
    const receptacles = [
      { aliquots: [aliquot(1, 10)] },
      { aliquots: [] },
      // The reference keeps one entry per sample uuid: the same sample twice (two tags) is one.
      { aliquots: [aliquot(2, 11, 7, 1), aliquot(3, 11, 7, 2), aliquot(4, 12, null)] },
    ];
    expect(stockResources(receptacles)).toEqual([
      { slot: 1, samples: [{ sample: 10, study: 7 }] },
      {
        slot: 3,
        samples: [
          { sample: 11, study: 7 },
          { sample: 12, study: null },
        ],
      },
    ]);
  });
});

describe('what a registration registers', () => {
  const filled = [{ aliquots: [aliquot(1, 10)] }, { aliquots: [aliquot(2, 11)] }];

  it('registers every filled receptacle the first time, with a digest the labware keeps', () => {
    const first = stockToRegister(filled, undefined);
    expect(first.resources.map((r) => r.slot)).toEqual([1, 2]);
    expect(first.digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('registers nothing again while the contents are those registered; every filled receptacle once they change', () => {
    const { digest } = stockToRegister(filled, undefined);
    expect(stockToRegister(filled, digest).resources).toEqual([]);
    const changed = [...filled, { aliquots: [aliquot(3, 12)] }];
    const again = stockToRegister(changed, digest);
    expect(again.resources.map((r) => r.slot)).toEqual([1, 2, 3]);
    expect(again.digest).not.toBe(digest);
  });

  it('registers nothing for a labware with no aliquots (the reference registers no well then either)', () => {
    expect(stockToRegister([{ aliquots: [] }, { aliquots: [] }], undefined).resources).toEqual([]);
  });
});
