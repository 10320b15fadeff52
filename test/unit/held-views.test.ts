import { describe, expect, it, vi } from 'vitest';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import { registry } from '#lib/resources/index.ts';
import { wells } from '#lib/resources/receptacles.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/** A 96-well plate whose first wells are in the given states. */
const plate = (states: string[]): StoredRecord => ({
  family: 'labware',
  id: 7,
  type: 'plates',
  uuid: 'f71f6045-4b75-44cf-996c-70cd12460000',
  createdAt: '',
  updatedAt: '',
  version: 1,
  attrs: { size: 96, receptacles: states.map((state) => ({ state, aliquots: [] })) },
  rels: {},
});

/** The wells' definition, counting how often its views are built. */
function countedWells(): { def: ResourceDef; extract: ReturnType<typeof vi.fn> } {
  const extract = vi.fn(wells.embedded!.extract);
  return { def: { ...wells, embedded: { ...wells.embedded!, extract } }, extract };
}

describe("a record's embedded records (Registry.viewsOf)", () => {
  it('are built once per record, however often a write reads them', () => {
    const { def, extract } = countedWells();
    const record = plate(['pending', 'started']);
    const first = registry.viewsOf(def, record);
    expect(registry.viewsOf(def, record)).toBe(first);
    expect(extract).toHaveBeenCalledTimes(1);
    expect(first.map((well) => well.attrs.state)).toEqual(['pending', 'started']);
  });

  it('are built again for a record staged and changed again in the same write (changed in place, with new attrs)', () => {
    const { def, extract } = countedWells();
    const record = plate(['pending']);
    registry.viewsOf(def, record);
    // As lib/store/unit-of-work.ts `update` changes a record the write created.
    Object.assign(record, { attrs: { ...record.attrs, receptacles: [{ state: 'passed', aliquots: [] }] } });
    expect(registry.viewsOf(def, record).map((well) => well.attrs.state)).toEqual(['passed']);
    expect(extract).toHaveBeenCalledTimes(2);
  });

  it('are found by `family:id` through one lookup per record as it is (a load of many wells of one plate)', () => {
    const record = plate(['pending', 'started']);
    const byKey = registry.heldByKey(record);
    expect(registry.heldByKey(record)).toBe(byKey);
    expect(byKey.get('receptacles:7002')?.attrs.state).toBe('started');
    Object.assign(record, { attrs: { ...record.attrs, receptacles: [{ state: 'pending' }, { state: 'passed' }].map((r) => ({ ...r, aliquots: [] })) } });
    expect(registry.heldByKey(record).get('receptacles:7002')?.attrs.state).toBe('passed');
  });

  it('are frozen: no reader can change what the next one reads', () => {
    const [well] = registry.viewsOf(wells, plate(['pending']));
    expect(() => {
      well!.attrs.state = 'failed';
    }).toThrow(TypeError);
    expect(() => {
      (registry.viewsOf(wells, plate(['pending'])) as StoredRecord[]).push(well!);
    }).toThrow(TypeError);
  });
});
