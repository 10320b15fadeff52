import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnOrder, layoutForSize, positionIndex } from '#lib/domain/geometry.ts';
import { RECEPTACLE_STATES, type ReceptacleState } from '#lib/domain/labware.ts';
import {
  isGoodSource,
  needsDestination,
  planTransfer,
  poolTubeName,
  TRANSFER_TYPES,
  type LabwareAt,
  type SourceReceptacle,
  type TransferType,
} from '#lib/domain/transfers.ts';
import { problems, value } from '../support/outcomes.ts';

/** The transfer planner (lib/domain/transfers.ts): the ten types, without labware records, store or HTTP. */

type Well = Partial<Omit<SourceReceptacle, 'slot' | 'name'>>;
type Source = LabwareAt & { receptacles: SourceReceptacle[] };

/** A plate whose wells are empty unless described (a described well holds one aliquot unless it says otherwise). */
function plate(wells: Record<string, Well> = {}, size = 96): Source {
  const names = columnOrder(layoutForSize(size)!);
  return {
    kind: 'plate',
    size,
    receptacles: names.map((name, i) => ({
      slot: i + 1,
      name,
      aliquots: Object.hasOwn(wells, name) ? 1 : 0,
      state: 'pending',
      pool: null,
      ...wells[name],
    })),
  };
}

/** A plate with every well filled and pending (in a pool when given). */
const fullPlate = (size = 96, pool: number | null = null) => plate(Object.fromEntries(columnOrder(layoutForSize(size)!).map((n) => [n, { pool }])), size);

const tube = (receptacle: Well = {}): Source => ({
  kind: 'tube',
  size: 1,
  receptacles: [{ slot: 1, name: 'NT1', aliquots: 1, state: 'pending', pool: null, ...receptacle }],
});

const PLATE: LabwareAt = { kind: 'plate', size: 96 };
const PLATE_384: LabwareAt = { kind: 'plate', size: 384 };
const TUBE: LabwareAt = { kind: 'tube', size: 1 };

const slot = (name: string, size = 96) => positionIndex(layoutForSize(size)!, name)! + 1;

function plan(type: TransferType, source: Source, destination: LabwareAt | null, transfers?: unknown, clientTransfers = transfers !== undefined) {
  return planTransfer({ type, source, destination, transfers, clientTransfers });
}

describe('isGoodSource', () => {
  const r = (aliquots: number, state: ReceptacleState): SourceReceptacle => ({ slot: 1, name: 'A1', aliquots, state, pool: null });

  it.each(RECEPTACLE_STATES.filter((s) => s !== 'failed' && s !== 'cancelled'))('a receptacle with aliquots in state %s is good', (state) => {
    expect(isGoodSource(r(1, state))).toBe(true);
  });

  it.each(['failed', 'cancelled'] as const)('a %s receptacle is not good, however much it holds', (state) => {
    expect(isGoodSource(r(5, state))).toBe(false);
  });

  it('an empty receptacle is not good', () => {
    expect(isGoodSource(r(0, 'passed'))).toBe(false);
  });
});

describe('needsDestination', () => {
  it('is true for exactly the types whose destination the client names', () => {
    expect(TRANSFER_TYPES.filter(needsDestination)).toEqual([
      'Transfer::BetweenPlatesBySubmission',
      'Transfer::BetweenPlates',
      'Transfer::BetweenSpecificTubes',
      'Transfer::FromPlateToTube',
    ]);
  });
});

describe('poolTubeName', () => {
  it.each([
    [['B1', 'A1', 'A2'], 96, 'DN1S A1:A2'],
    [['A2', 'H1'], 96, 'DN1S H1:A2'],
    [['A12', 'A2', 'H11'], 96, 'DN1S A2:A12'],
    [['C3'], 96, 'DN1S C3:C3'],
    [['A2', 'P1', 'B1'], 384, 'DN1S B1:A2'],
    [['P24', 'A1'], 384, 'DN1S A1:P24'],
  ])('%j of a %i-well plate: %s', (wells, size, name) => {
    expect(poolTubeName('DN1S', wells, size)).toBe(name);
  });

  it('does not reorder the list it is given', () => {
    const wells = ['B1', 'A1'];
    poolTubeName('DN1S', wells, 96);
    expect(wells).toEqual(['B1', 'A1']);
  });

  it('names an empty range when no well went in', () => {
    expect(poolTubeName('DN1S', [], 96)).toBe('DN1S :');
  });
});

describe('the types that cannot be used', () => {
  it.each(['Transfer::FromPlateToSpecificTubes', 'Transfer::FromPlateToSpecificTubesByPool'] as const)('%s needs targets this API does not expose', (type) => {
    const found = problems(plan(type, fullPlate(), TUBE));
    expect(found).toEqual([{ code: 'needs_targets', input: ['transfer_template_uuid'], detail: expect.stringContaining('targets') }]);
    expect(found[0]!.detail).toContain(type);
  });

  it('BetweenPlateAndTubes is abstract', () => {
    const found = problems(plan('Transfer::BetweenPlateAndTubes', fullPlate(), null));
    expect(found).toEqual([{ code: 'abstract_type', input: ['transfer_template_uuid'], detail: expect.stringContaining('cannot be used directly') }]);
  });
});

describe('Transfer::BetweenPlates', () => {
  const type = 'Transfer::BetweenPlates';

  it('moves each good listed well to its destination well, skipping empty, failed and cancelled wells, and records the map pruned to the wells used', () => {
    const source = plate({ A1: {}, B1: { state: 'passed', aliquots: 3 }, D1: { state: 'failed' }, E1: { state: 'cancelled' }, A2: {} });
    const transfers = { A2: 'H12', A1: 'A1', B1: 'C5', C1: 'C1', D1: 'D1', E1: 'E1' };
    const result = value(plan(type, source, PLATE, transfers));
    expect(result.moves).toEqual([
      { source: slot('A1'), into: { slot: slot('A1') } },
      { source: slot('B1'), into: { slot: slot('C5') } },
      { source: slot('A2'), into: { slot: slot('H12') } },
    ]);
    expect(result.recorded).toEqual({ A2: 'H12', A1: 'A1', B1: 'C5' });
    expect(Object.keys(result.recorded!)).toEqual(['A2', 'A1', 'B1']);
  });

  it('moves a well once to each destination well of an array value, and records the array', () => {
    const result = value(plan(type, plate({ A1: {}, B1: {} }), PLATE, { A1: ['A1', 'B1'], B1: ['A1'] }));
    expect(result.moves).toEqual([
      { source: 1, into: { slot: 1 } },
      { source: 1, into: { slot: 2 } },
      { source: 2, into: { slot: 1 } },
    ]);
    expect(result.recorded).toEqual({ A1: ['A1', 'B1'], B1: ['A1'] });
  });

  it('uses a template map (not the client’s) the same way', () => {
    const result = value(plan(type, plate({ A1: {} }), PLATE, { A1: 'B2' }, false));
    expect(result.moves).toEqual([{ source: 1, into: { slot: slot('B2') } }]);
  });

  it('moves nothing, and records an empty map, when no listed well is good', () => {
    expect(value(plan(type, plate({ A1: { state: 'failed' } }), PLATE, { A1: 'A1', B1: 'B1' }))).toEqual({ moves: [], recorded: {} });
  });

  it('checks positions against each plate’s own size', () => {
    expect(value(plan(type, plate({ A1: {} }), PLATE_384, { A1: 'P24' })).moves).toEqual([{ source: 1, into: { slot: 384 } }]);
    const found = problems(plan(type, plate({ A1: {} }), PLATE, { A1: 'P24' }));
    expect(found).toEqual([{ code: 'not_a_position', input: ['transfers'], detail: 'P24 are not valid positions for the destination plate' }]);
  });

  it('names every source key and destination value that is not a position (each once, sorted), both problems at once', () => {
    const found = problems(plan(type, plate({ A1: {} }), PLATE, { Z1: 'A1', A13: 'I1', a1: ['A1', 42, 'I1'], A1: { well: 'B1' } }));
    expect(found).toEqual([
      { code: 'not_a_position', input: ['transfers'], detail: 'A13, Z1, a1 are not valid positions for the source plate' },
      { code: 'not_a_position', input: ['transfers'], detail: '"42", "{\\"well\\":\\"B1\\"}", I1 are not valid positions for the destination plate' },
    ]);
  });

  it.each([[['A1']], ['A1'], [7], [true]])('refuses %j: not a map', (transfers) => {
    expect(problems(plan(type, fullPlate(), PLATE, transfers))).toEqual([
      { code: 'not_a_map', input: ['transfers'], detail: 'must be a map from source to destination location' },
    ]);
  });

  it.each([undefined, null])('refuses no map at all (%s): the template has none and none was sent', (transfers) => {
    const found = problems(plan(type, fullPlate(), PLATE, transfers));
    expect(found).toEqual([{ code: 'blank', input: ['transfers'], detail: expect.stringContaining('send a map from source to destination') }]);
  });

  it('refuses an empty map', () => {
    expect(problems(plan(type, fullPlate(), PLATE, {}))).toEqual([{ code: 'blank', input: ['transfers'], detail: expect.stringContaining("can't be blank") }]);
  });

  it('needs a destination plate and a source plate, and reports them with the map’s problems', () => {
    expect(problems(plan(type, fullPlate(), null, { A1: 'A1' }))).toEqual([{ code: 'blank', input: ['destination'], detail: "can't be blank" }]);
    expect(problems(plan(type, tube(), TUBE, ['A1']))).toEqual([
      { code: 'wrong_labware', input: ['source'], detail: 'is a tube, but Transfer::BetweenPlates moves material out of a plate' },
      { code: 'wrong_labware', input: ['destination'], detail: 'is a tube, but Transfer::BetweenPlates moves material into a plate' },
      { code: 'not_a_map', input: ['transfers'], detail: 'must be a map from source to destination location' },
    ]);
    expect(problems(plan(type, fullPlate(), TUBE, { Q1: 'A1' })).map((p) => p.code)).toEqual(['wrong_labware', 'not_a_position']);
  });

  it('property: with a random partial map, moves only good listed wells, each once to each of its distinct destinations, and records exactly those', () => {
    const names = columnOrder(layoutForSize(96)!);
    const well = fc.record({ aliquots: fc.integer({ min: 0, max: 3 }), state: fc.constantFrom(...RECEPTACLE_STATES) });
    const entry = fc.oneof(fc.constantFrom(...names), fc.array(fc.constantFrom(...names), { maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(well, { minLength: 96, maxLength: 96 }), fc.dictionary(fc.constantFrom(...names), entry, { minKeys: 1 }), (wells, map) => {
        const source = plate(Object.fromEntries(names.map((n, i) => [n, wells[i]!])));
        const result = value(plan(type, source, PLATE, map));
        const byName = new Map(source.receptacles.map((r) => [r.name, r]));
        const used = Object.keys(map).filter((n) => isGoodSource(byName.get(n)!));
        expect(Object.keys(result.recorded!).sort()).toEqual([...used].sort());
        const expected = used.flatMap((n) => [...new Set([map[n]!].flat())].map((d) => `${slot(n)}>${slot(d)}`));
        const moved = result.moves.map((m) => `${m.source}>${'slot' in m.into ? m.into.slot : 'pool'}`);
        expect([...moved].sort()).toEqual([...expected].sort());
        for (const m of result.moves) expect(isGoodSource(source.receptacles[m.source - 1]!)).toBe(true);
        expect(result.moves.map((m) => m.source)).toEqual([...result.moves.map((m) => m.source)].sort((a, b) => a - b));
      }),
    );
  });
});

describe('Transfer::BetweenPlatesBySubmission', () => {
  const type = 'Transfer::BetweenPlatesBySubmission';

  it('groups pooled wells by pool in column order and sends group n to the n-th destination well; wells without a pool stay', () => {
    const source = plate({ A1: { pool: 7 }, B1: { pool: 5 }, C1: { pool: 7 }, D1: {}, E1: { pool: 9 }, A2: { pool: 5 } });
    const result = value(plan(type, source, PLATE));
    expect(result.moves).toEqual([
      { source: slot('A1'), into: { slot: 1 } },
      { source: slot('B1'), into: { slot: 2 } },
      { source: slot('C1'), into: { slot: 1 } },
      { source: slot('E1'), into: { slot: 3 } },
      { source: slot('A2'), into: { slot: 2 } },
    ]);
    expect(result.recorded).toEqual({ A1: 'A1', B1: 'B1', C1: 'A1', E1: 'C1', A2: 'B1' });
  });

  it('goes down the destination’s columns: the ninth pool goes to A2', () => {
    const source = plate(
      Object.fromEntries(
        columnOrder(layoutForSize(96)!)
          .slice(0, 9)
          .map((n, i) => [n, { pool: 100 + i }]),
      ),
    );
    const result = value(plan(type, source, PLATE));
    expect(result.recorded).toMatchObject({ A2: 'A2', H1: 'H1' });
    expect(result.moves.at(-1)).toEqual({ source: 9, into: { slot: 9 } });
  });

  it('leaves out bad wells, but a pool of bad wells still takes its destination well (as the reference groups before it filters)', () => {
    const source = plate({ A1: { pool: 3, state: 'failed' }, B1: { pool: 4 }, C1: { pool: 3, aliquots: 0 }, D1: { pool: 4, state: 'cancelled' } });
    const result = value(plan(type, source, PLATE));
    expect(result.moves).toEqual([{ source: 2, into: { slot: 2 } }]);
    expect(result.recorded).toEqual({ B1: 'B1' });
  });

  it('refuses more pools than the destination has wells, and accepts as many', () => {
    const names = columnOrder(layoutForSize(384)!);
    const pools = (count: number) => plate(Object.fromEntries(names.slice(0, count).map((n, i) => [n, { pool: i + 1 }])), 384);
    expect(value(plan(type, pools(96), PLATE)).moves.at(-1)).toEqual({ source: 96, into: { slot: 96 } });
    expect(problems(plan(type, pools(97), PLATE))).toEqual([
      { code: 'no_destination_well', input: ['destination'], detail: expect.stringContaining('96 wells') },
    ]);
    expect(value(plan(type, pools(97), PLATE_384)).moves).toHaveLength(97);
  });

  it('refuses a map from the client, but not an empty one nor the template’s', () => {
    expect(problems(plan(type, fullPlate(96, 1), PLATE, { A1: 'A1' }))).toEqual([
      { code: 'not_assignable', input: ['transfers'], detail: expect.stringContaining('cannot be assigned') },
    ]);
    expect(value(plan(type, fullPlate(96, 1), PLATE, {})).moves).toHaveLength(96);
    expect(value(plan(type, fullPlate(96, 1), PLATE, { A1: 'A1' }, false)).moves).toHaveLength(96);
  });

  it('needs plates at both ends', () => {
    expect(problems(plan(type, fullPlate(96, 1), null))).toEqual([{ code: 'blank', input: ['destination'], detail: "can't be blank" }]);
    expect(problems(plan(type, fullPlate(96, 1), TUBE)).map((p) => [p.code, p.input])).toEqual([['wrong_labware', ['destination']]]);
    expect(problems(plan(type, tube({ pool: 1 }), PLATE)).map((p) => [p.code, p.input])).toEqual([['wrong_labware', ['source']]]);
  });

  it('property: wells of one pool share a destination well, and different pools never do', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }), { minLength: 96, maxLength: 96 }), (pools) => {
        const source = plate(Object.fromEntries(columnOrder(layoutForSize(96)!).map((n, i) => [n, { pool: pools[i]! }])));
        const result = value(plan(type, source, PLATE));
        const wellOfPool = new Map<number, number>();
        for (const m of result.moves) {
          const pool = pools[m.source - 1]!;
          expect(pool).not.toBeNull();
          const into = (m.into as { slot: number }).slot;
          expect(wellOfPool.get(pool!) ?? into).toBe(into);
          wellOfPool.set(pool!, into);
        }
        expect(new Set(wellOfPool.values()).size).toBe(wellOfPool.size);
        expect(result.moves).toHaveLength(pools.filter((p) => p !== null).length);
      }),
    );
  });
});

describe('Transfer::FromPlateToTube', () => {
  const type = 'Transfer::FromPlateToTube';

  it('without a list moves every good well of the plate into the tube, and records them in column order', () => {
    const result = value(plan(type, plate({ A1: {}, C1: { state: 'failed' }, A2: {}, H12: {} }), TUBE));
    expect(result.moves).toEqual([
      { source: 1, into: { slot: 1 } },
      { source: 9, into: { slot: 1 } },
      { source: 96, into: { slot: 1 } },
    ]);
    expect(result.recorded).toEqual(['A1', 'A2', 'H12']);
  });

  it('with a list moves the good listed wells only and records the list without the wells left out, in the order given', () => {
    const result = value(plan(type, plate({ A1: {}, B1: {}, C1: { aliquots: 0 }, D1: {} }), TUBE, ['B1', 'C1', 'A1', 'B1']));
    expect(result.moves).toEqual([
      { source: 1, into: { slot: 1 } },
      { source: 2, into: { slot: 1 } },
    ]);
    expect(result.recorded).toEqual(['B1', 'A1']);
  });

  it('takes the template’s list for a 384-well plate', () => {
    const names = columnOrder(layoutForSize(384)!);
    const result = value(plan(type, fullPlate(384), TUBE, names, false));
    expect(result.moves).toHaveLength(384);
    expect(result.recorded).toEqual(names);
  });

  it('refuses names that are not wells of the plate', () => {
    expect(problems(plan(type, fullPlate(), TUBE, ['A1', 'P24', 'A13', 5]))).toEqual([
      { code: 'not_a_position', input: ['transfers'], detail: '"5", A13, P24 are not valid positions for the source plate' },
    ]);
  });

  it.each([[{ A1: 'A1' }], ['A1']])('refuses %j: not an array', (transfers) => {
    expect(problems(plan(type, fullPlate(), TUBE, transfers))).toEqual([
      { code: 'not_a_list', input: ['transfers'], detail: 'must be an array of well positions' },
    ]);
  });

  it('refuses an empty list', () => {
    expect(problems(plan(type, fullPlate(), TUBE, []))).toEqual([{ code: 'blank', input: ['transfers'], detail: expect.stringContaining("can't be blank") }]);
  });

  it('needs a plate source and a tube destination', () => {
    expect(problems(plan(type, fullPlate(), PLATE))).toEqual([
      { code: 'wrong_labware', input: ['destination'], detail: 'is a plate, but Transfer::FromPlateToTube moves material into a tube' },
    ]);
    expect(problems(plan(type, fullPlate(), null))).toEqual([{ code: 'blank', input: ['destination'], detail: "can't be blank" }]);
    expect(problems(plan(type, tube(), TUBE)).map((p) => [p.code, p.input])).toEqual([['wrong_labware', ['source']]]);
  });
});

describe.each(['Transfer::FromPlateToTubeBySubmission', 'Transfer::FromPlateToTubeByMultiplex'] as const)('%s', (type) => {
  it('moves each good pooled well into the tube of its pool, leaves wells without a pool, and records well → pool', () => {
    const source = plate({ A1: { pool: 7 }, B1: { pool: 5 }, C1: {}, D1: { pool: 7, state: 'failed' }, A2: { pool: 7 } });
    const result = value(plan(type, source, null));
    expect(result.moves).toEqual([
      { source: 1, into: { pool: 7 } },
      { source: 2, into: { pool: 5 } },
      { source: 9, into: { pool: 7 } },
    ]);
    expect(result.recorded).toEqual({ A1: 7, B1: 5, A2: 7 });
  });

  it('does not use a destination the client names', () => {
    expect(value(plan(type, plate({ A1: { pool: 1 } }), PLATE)).moves).toEqual([{ source: 1, into: { pool: 1 } }]);
  });

  it('refuses a list or map from the client, but not the template’s nor an empty one', () => {
    expect(problems(plan(type, plate({ A1: { pool: 1 } }), null, ['A1']))).toEqual([
      { code: 'not_assignable', input: ['transfers'], detail: expect.stringContaining('cannot be assigned') },
    ]);
    expect(value(plan(type, plate({ A1: { pool: 1 } }), null, [])).moves).toHaveLength(1);
    expect(value(plan(type, plate({ A1: { pool: 1 } }), null, ['B1'], false)).moves).toHaveLength(1);
  });

  it('needs a plate source', () => {
    expect(problems(plan(type, tube({ pool: 1 }), null)).map((p) => [p.code, p.input])).toEqual([['wrong_labware', ['source']]]);
  });
});

describe('Transfer::BetweenSpecificTubes', () => {
  const type = 'Transfer::BetweenSpecificTubes';

  it('moves a good source tube into the destination tube and records nothing', () => {
    expect(value(plan(type, tube(), TUBE))).toEqual({ moves: [{ source: 1, into: { slot: 1 } }], recorded: null });
  });

  it.each<Well>([{ aliquots: 0 }, { state: 'failed' }, { state: 'cancelled' }])('moves nothing out of a tube that is not good (%j)', (receptacle) => {
    expect(value(plan(type, tube(receptacle), TUBE))).toEqual({ moves: [], recorded: null });
  });

  it('needs tubes at both ends, and a named destination', () => {
    expect(problems(plan(type, tube(), null))).toEqual([{ code: 'blank', input: ['destination'], detail: "can't be blank" }]);
    expect(problems(plan(type, fullPlate(), PLATE)).map((p) => [p.code, p.input])).toEqual([
      ['wrong_labware', ['source']],
      ['wrong_labware', ['destination']],
    ]);
  });

  it('refuses transfers from the client', () => {
    expect(problems(plan(type, tube(), TUBE, { A1: 'A1' })).map((p) => p.code)).toEqual(['not_assignable']);
  });
});

describe('Transfer::BetweenTubesBySubmission', () => {
  const type = 'Transfer::BetweenTubesBySubmission';

  it('moves the source tube into the tube of its pool, needing no named destination', () => {
    expect(value(plan(type, tube({ pool: 12 }), null))).toEqual({ moves: [{ source: 1, into: { pool: 12 } }], recorded: null });
    expect(value(plan(type, tube({ pool: 12 }), TUBE)).moves).toEqual([{ source: 1, into: { pool: 12 } }]);
  });

  it('moves nothing out of a failed tube', () => {
    expect(value(plan(type, tube({ pool: 12, state: 'failed' }), null)).moves).toEqual([]);
  });

  it('refuses a source tube without a pool', () => {
    expect(problems(plan(type, tube(), null))).toEqual([{ code: 'no_pool', input: ['source'], detail: expect.stringContaining('could not be found') }]);
  });

  it('needs a tube source', () => {
    expect(problems(plan(type, fullPlate(96, 1), null)).map((p) => [p.code, p.input])).toEqual([['wrong_labware', ['source']]]);
  });
});
