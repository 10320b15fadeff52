import { describe, expect, it } from 'vitest';
import { LARGE_WRITE_ITEM_LIMIT, MAX_POLY_METADATA_PER_WRITE, POLY_METADATUM_ITEMS, polyMetadataItems, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { foldKey, keyOfRecord, METADATABLE_TYPES, metadatableTypeNamed, repeatedKeys } from '#lib/domain/poly-metadata.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

describe('metadatableTypeNamed', () => {
  it('reads JSON:API types and the reference’s class names', () => {
    const classNames = ['Request', 'Well', 'Sample', 'Plate', 'Tube', 'TubeRack', 'Aliquot'];
    expect(METADATABLE_TYPES).toEqual(['requests', 'wells', 'samples', 'plates', 'tubes', 'tube_racks', 'aliquots']);
    for (const [i, type] of METADATABLE_TYPES.entries()) {
      expect(metadatableTypeNamed(type)).toBe(type);
      expect(metadatableTypeNamed(classNames[i]!)).toBe(type);
    }
  });

  it('names nothing else (case matters, as in the reference)', () => {
    for (const name of ['request', 'Requests', 'studies', 'Study', 'Labware', 'receptacles', '']) expect(metadatableTypeNamed(name)).toBeUndefined();
  });
});

describe('keyOfRecord', () => {
  it('is one value per record and key ignoring case', () => {
    expect(keyOfRecord({ type: 'wells', id: 17001, key: 'PCR_Cycles' })).toBe(keyOfRecord({ type: 'wells', id: 17001, key: 'pcr_cycles' }));
    expect(keyOfRecord({ type: 'wells', id: 17001, key: 'k' })).not.toBe(keyOfRecord({ type: 'wells', id: 17002, key: 'k' }));
    expect(keyOfRecord({ type: 'wells', id: 1, key: 'k' })).not.toBe(keyOfRecord({ type: 'plates', id: 1, key: 'k' }));
    // In every script: full case mapping (ß is SS, final ς is σ), composed or not.
    for (const [a, b] of [
      ['straße', 'STRASSE'],
      ['ΟΔΟΣ', 'οδος'],
      ['οδοσ', 'οδος'],
      ['\u212Aey', 'key'],
      ['Cafe\u0301', 'CAFÉ'],
    ]) {
      expect(keyOfRecord({ type: 'wells', id: 1, key: a! }), `${a} ${b}`).toBe(keyOfRecord({ type: 'wells', id: 1, key: b! }));
    }
    expect(['PCR_Cycles', 'Ünï', 'a b'].map(foldKey)).toEqual(['pcr_cycles', 'ünï', 'a b']);
    expect(keyOfRecord({ type: 'wells', id: 1, key: 'straße' })).not.toBe(keyOfRecord({ type: 'wells', id: 1, key: 'strase' }));
    // A key may hold the separator without making two records' keys meet.
    expect(keyOfRecord({ type: 'wells', id: 1, key: '2/k' })).not.toBe(keyOfRecord({ type: 'wells', id: 12, key: 'k' }));
  });
});

describe('repeatedKeys', () => {
  it('maps each entry repeating an earlier entry’s record and key (ignoring case) to that earlier entry', () => {
    const entries = [
      { type: 'requests', id: 1, key: 'a' },
      { type: 'requests', id: 2, key: 'a' },
      { type: 'requests', id: 1, key: 'A' },
      { type: 'wells', id: 1, key: 'a' },
      { type: 'requests', id: 1, key: 'a' },
    ];
    expect([...repeatedKeys(entries)]).toEqual([
      [2, 0],
      [4, 0],
    ]);
    expect(repeatedKeys([]).size).toBe(0);
  });
});

describe('the bulk_create budget', () => {
  const metadatum: StoredRecord = {
    family: 'poly_metadata',
    id: 7,
    type: 'poly_metadata',
    uuid: '',
    createdAt: '',
    updatedAt: '',
    version: 1,
    attrs: { key: 'k', value: 'v' },
    rels: { metadatable: { type: 'wells', id: 17_001 } },
  };

  it('counts the index items the resource definition gives a metadatum (lookup slots cost none)', () => {
    expect(POLY_METADATUM_ITEMS).toBe(1 + registry.termsOf(metadatum).length);
    expect(registry.lookupsOf(metadatum)).toEqual({ lookup1: 'poly_metadata.key#k', lookup2: 'poly_metadata.metadatable_type#wells' });
  });

  it('fits 24 metadata with the count shard and the request item in a transaction, not 25', () => {
    expect(polyMetadataItems(24)).toBe(98);
    expect(polyMetadataItems(25)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
  });

  it('takes in one request as many metadata as the bound of a large write holds: a lab’s 400 and more', () => {
    expect(MAX_POLY_METADATA_PER_WRITE).toBe(Math.floor(LARGE_WRITE_ITEM_LIMIT / POLY_METADATUM_ITEMS));
    expect(MAX_POLY_METADATA_PER_WRITE).toBeGreaterThanOrEqual(400);
  });
});
