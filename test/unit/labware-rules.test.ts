import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ALIQUOTS_PER_RECEPTACLE } from '#lib/domain/budgets.ts';
import { layoutForSize } from '#lib/domain/geometry.ts';
import { emptyReceptacles, labwareState, type Aliquot, type AliquotContent, type Labware, type Receptacle, type ReceptacleState } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { placeTubes, planPlacements, rackSlot, rackState, resizeRack } from '#lib/domain/racks.ts';
import { addAliquot, copyAliquots, poolOf, receiveTransfer } from '#lib/domain/receptacles.ts';
import { problems, value } from '../support/outcomes.ts';

/** The lab rules over the labware aggregate (lib/domain), without any store or HTTP. */

const plate = (size = 96): Labware => ({
  name: null,
  barcode: { human_barcode: 'DN1S', machine_barcode: null, ean13_barcode: null, external: false },
  state: 'pending',
  size,
  receptacles: emptyReceptacles(size),
  aliquotCount: 0,
});

const A1 = { slot: 1, name: 'wells 7001' };
const B1 = { slot: 2, name: 'wells 7002' };
const tag = (oligo: string, index = 1) => ({ oligo, index });
const content = (sample: number, extra: Partial<AliquotContent> = {}): AliquotContent => ({
  sample,
  study: null,
  tag: null,
  tag2: null,
  library_type: null,
  ...extra,
});

/** A receptacle holding `count` aliquots of distinct samples and tags. */
const pool = (count: number): Receptacle => ({
  state: 'pending',
  aliquots: Array.from({ length: count }, (_, i): Aliquot => ({ n: i + 1, ...content(1000 + i, { tag: tag(`T${i}`, i + 1) }) })),
});

describe('addAliquot', () => {
  it('puts an aliquot into one receptacle, numbered after every aliquot the labware held, leaving the rest (and its input) alone', () => {
    const before = { ...plate(), aliquotCount: 7 };
    const after = value(addAliquot(before, B1, content(5)));
    expect(after.aliquotCount).toBe(8);
    expect(after.receptacles[1]!.aliquots).toEqual([{ n: 8, ...content(5) }]);
    expect(after.receptacles.filter((r) => r.aliquots.length > 0)).toHaveLength(1);
    expect(before.receptacles[1]!.aliquots).toEqual([]);
  });

  it('refuses the same sample with the same tags again, naming the sample and the receptacle', () => {
    const once = value(addAliquot(plate(), A1, content(5, { tag: tag('ACGT') })));
    expect(problems(addAliquot(once, A1, content(5, { tag: tag('ACGT'), library_type: 'Standard' })))).toEqual([
      { code: 'duplicate_aliquot', input: ['sample'], detail: 'wells 7001 already holds sample 5 with the same tags' },
    ]);
  });

  it('refuses another sample with the same tag pair (no tag counts as a value): a tag clash naming both samples and the receptacle', () => {
    const once = value(addAliquot(plate(), A1, content(5)));
    const [problem] = problems(addAliquot(once, A1, content(6)));
    expect(problem).toEqual({
      code: 'tag_clash',
      input: ['sample'],
      detail: 'tag clash: wells 7001 already holds sample 5 with the same tags ("-/-") as sample 6',
    });
    const tagged = value(addAliquot(plate(), A1, content(5, { tag: tag('AAAA'), tag2: tag('CCCC') })));
    expect(problems(addAliquot(tagged, A1, content(6, { tag: tag('AAAA', 9), tag2: tag('CCCC', 9) })))[0]!.detail).toContain('"AAAA/CCCC"');
  });

  it('pools samples whose tag pairs differ, in tag or in tag2 only, and the same sample in another well', () => {
    let labware = value(addAliquot(plate(), A1, content(5, { tag: tag('AAAA'), tag2: tag('CCCC') })));
    labware = value(addAliquot(labware, A1, content(6, { tag: tag('AAAA'), tag2: tag('GGGG') })));
    labware = value(addAliquot(labware, A1, content(7, { tag: tag('TTTT'), tag2: tag('CCCC') })));
    labware = value(addAliquot(labware, B1, content(5, { tag: tag('AAAA'), tag2: tag('CCCC') })));
    expect(labware.receptacles[0]!.aliquots.map((a) => [a.n, a.sample])).toEqual([
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
    expect(labware.receptacles[1]!.aliquots.map((a) => [a.n, a.sample])).toEqual([[4, 5]]);
  });

  it(`holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} aliquots in a receptacle: one more is over the pool budget, naming it and the count`, () => {
    const tube = (count: number): Labware => ({ ...plate(), size: undefined, receptacles: [pool(count)], aliquotCount: count });
    const tube1 = { slot: 1, name: 'receptacles 9001' };
    expect(value(addAliquot(tube(MAX_ALIQUOTS_PER_RECEPTACLE - 1), tube1, content(1))).receptacles[0]!.aliquots).toHaveLength(MAX_ALIQUOTS_PER_RECEPTACLE);
    expect(problems(addAliquot(tube(MAX_ALIQUOTS_PER_RECEPTACLE), tube1, content(1)))).toEqual([
      {
        code: 'over_budget',
        input: ['receptacle'],
        detail: `receptacles 9001 would hold ${MAX_ALIQUOTS_PER_RECEPTACLE + 1} aliquots; a receptacle holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} (the largest pool)`,
      },
    ]);
  });

  it('treats a slot the labware does not have as a caller mistake', () => {
    expect(() => addAliquot(plate(), { slot: 97, name: 'wells 7097' }, content(1))).toThrow(RangeError);
  });

  it('never lets two samples share a tag pair in one receptacle, whatever is added in whatever order', () => {
    const oligos = ['A', 'C', null];
    const additions = fc.array(
      fc.record({
        slot: fc.integer({ min: 1, max: 3 }),
        sample: fc.integer({ min: 1, max: 4 }),
        tag: fc.constantFrom(...oligos),
        tag2: fc.constantFrom(...oligos),
      }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(additions, (steps) => {
        let labware = plate();
        for (const step of steps) {
          const result = addAliquot(
            labware,
            { slot: step.slot, name: 'w' },
            content(step.sample, { tag: step.tag ? tag(step.tag) : null, tag2: step.tag2 ? tag(step.tag2) : null }),
          );
          if (result.ok) labware = result.value;
        }
        for (const receptacle of labware.receptacles) {
          const pairs = receptacle.aliquots.map((a) => `${a.tag?.oligo}/${a.tag2?.oligo}`);
          expect(new Set(pairs).size).toBe(pairs.length);
        }
        const numbers = labware.receptacles.flatMap((r) => r.aliquots.map((a) => a.n)).sort((a, b) => a - b);
        expect(numbers).toEqual(Array.from({ length: labware.aliquotCount }, (_, i) => i + 1));
      }),
    );
  });
});

describe('copyAliquots and receiveTransfer', () => {
  const source: Receptacle = {
    state: 'passed',
    aliquots: [
      { n: 1, ...content(5, { tag: tag('AAAA') }) },
      { n: 2, ...content(6, { tag: tag('CCCC') }) },
    ],
  };

  it('copies every aliquot into the target with numbers of the target labware, keeping the source as it was', () => {
    const target = { ...plate(), aliquotCount: 3 };
    const after = value(copyAliquots(source, target, A1));
    expect(after.receptacles[0]!.aliquots).toEqual([
      { n: 4, ...content(5, { tag: tag('AAAA') }) },
      { n: 5, ...content(6, { tag: tag('CCCC') }) },
    ]);
    expect(after.aliquotCount).toBe(5);
    expect(source.aliquots.map((a) => a.n)).toEqual([1, 2]);
  });

  it('merges a sample the target already holds with the same tags (the same aliquot, not a second)', () => {
    const target = value(addAliquot(plate(), A1, content(5, { tag: tag('AAAA') })));
    const after = value(copyAliquots(source, target, A1));
    expect(after.receptacles[0]!.aliquots.map((a) => a.sample)).toEqual([5, 6]);
    expect(after.aliquotCount).toBe(2);
  });

  it('refuses a copy that would clash, naming each clash, and changes nothing', () => {
    let target = value(addAliquot(plate(), A1, content(8, { tag: tag('AAAA') })));
    target = value(addAliquot(target, A1, content(9, { tag: tag('CCCC') })));
    expect(problems(copyAliquots(source, target, A1))).toEqual([
      { code: 'tag_clash', input: ['source'], detail: 'tag clash: wells 7001 already holds sample 8 with the same tags ("AAAA/-") as sample 5' },
      { code: 'tag_clash', input: ['source'], detail: 'tag clash: wells 7001 already holds sample 9 with the same tags ("CCCC/-") as sample 6' },
    ]);
  });

  it('refuses a copy past the pool budget', () => {
    const tube: Labware = { ...plate(), receptacles: [pool(MAX_ALIQUOTS_PER_RECEPTACLE - 1)], aliquotCount: MAX_ALIQUOTS_PER_RECEPTACLE - 1 };
    expect(problems(copyAliquots(source, tube, { slot: 1, name: 'receptacles 9001' }))[0]).toMatchObject({ code: 'over_budget', input: ['source'] });
  });

  it('a transfer copies the aliquots and records a pending transfer request naming the source receptacle, on the target only', () => {
    const once = value(receiveTransfer({ id: 5001, receptacle: source }, plate(), B1));
    const twice = value(receiveTransfer({ id: 6001, receptacle: { state: 'pending', aliquots: [] } }, once, B1));
    expect(twice.receptacles[1]!.transfers).toEqual([
      { n: 1, source: 5001, state: 'pending' },
      { n: 2, source: 6001, state: 'pending' },
    ]);
    expect(twice.receptacles[1]!.aliquots).toHaveLength(2);
    expect(twice.receptacles[0]).toEqual({ state: 'pending', aliquots: [] });
    expect(source).not.toHaveProperty('transfers');
    const clashing = value(addAliquot(plate(), B1, content(8, { tag: tag('AAAA') })));
    expect(problems(receiveTransfer({ id: 5001, receptacle: source }, clashing, B1))[0]!.code).toBe('tag_clash');
  });
});

describe('racks', () => {
  const L48 = layoutForSize(48)!;
  const L96 = layoutForSize(96)!;

  it('plans placements at coordinates in any case, spelled as the rack spells them, tube uuids in lower case', () => {
    expect(value(planPlacements(L96, [{ key: 'h12', uuid: 'ABC' }]))).toEqual([{ key: 'h12', uuid: 'abc', coordinate: 'H12' }]);
  });

  it('refuses keys that are not coordinates of the rack, a tube placed twice and a coordinate given twice, each at its input', () => {
    expect(
      problems(
        planPlacements(L48, [
          { key: 'A9', uuid: 'u1' },
          { key: 'B1', uuid: 'U1' },
          { key: 'C1', uuid: 'u2' },
          { key: 'c1', uuid: 'u3' },
        ]),
      ),
    ).toEqual([
      { code: 'not_a_coordinate', input: ['tube_locations', 'A9'], detail: '"A9" is not a coordinate of a 48-tube rack (A1 to F8)' },
      { code: 'placed_twice', input: ['tube_locations', 'B1', 'uuid'], detail: 'tube u1 is placed twice (A9 and B1)' },
      { code: 'coordinate_twice', input: ['tube_locations', 'c1'], detail: 'C1 is given twice' },
    ]);
  });

  it('places tubes not yet in a rack; a tube in a rack is refused', () => {
    const planned = value(
      planPlacements(L96, [
        { key: 'A1', uuid: 'u1' },
        { key: 'B1', uuid: 'u2' },
      ]),
    );
    const free = { id: 11, uuid: 'u1', rack: null };
    expect(value(placeTubes(planned, [free, { id: 12, uuid: 'u2', rack: null }]))).toEqual([
      { coordinate: 'A1', tube: 11 },
      { coordinate: 'B1', tube: 12 },
    ]);
    expect(problems(placeTubes(planned, [free, { id: 12, uuid: 'u2', rack: 40 }]))).toEqual([
      { code: 'already_racked', input: ['tube_locations', 'B1', 'uuid'], detail: 'tube u2 is already in tube rack 40' },
    ]);
  });

  it('resizes a rack only to a size every tube fits', () => {
    expect(value(resizeRack([{ coordinate: 'F8', tube: 1 }], L48))).toBe(48);
    expect(
      problems(
        resizeRack(
          [
            { coordinate: 'A9', tube: 1 },
            { coordinate: 'G1', tube: 2 },
            { coordinate: 'A1', tube: 3 },
          ],
          L48,
        ),
      ),
    ).toEqual([{ code: 'does_not_fit', input: ['size'], detail: "48 does not fit the rack's tubes at A9, G1" }]);
  });

  it("a rack's state is empty, its tubes' common state, or mixed; a racked tube's slot is its place on the 96 grid", () => {
    expect([rackState([]), rackState(['pending', 'pending']), rackState(['pending', 'passed'])]).toEqual(['empty', 'pending', 'mixed']);
    expect([rackSlot('A1'), rackSlot('H1'), rackSlot('A2'), rackSlot('H12')]).toEqual([1, 8, 9, 96]);
  });
});

describe('linkParents', () => {
  const child = { type: 'plates', id: 20 };

  it("adds parents to a child's, each once, in id order", () => {
    const parents = value(
      linkParents(
        child,
        [{ type: 'plates', id: 12 }],
        [
          { type: 'tubes', id: 3 },
          { type: 'plates', id: 12 },
          { type: 'plates', id: 15 },
        ],
      ),
    );
    expect(parents).toEqual([
      { type: 'tubes', id: 3 },
      { type: 'plates', id: 12 },
      { type: 'plates', id: 15 },
    ]);
  });

  it('refuses a labware as its own parent', () => {
    expect(problems(linkParents(child, [], [child]))).toEqual([{ code: 'own_parent', input: ['parents'], detail: 'plates 20 cannot be its own parent' }]);
  });
});

describe('labwareState and poolOf', () => {
  const withTransfers = (...states: ReceptacleState[][]): Labware => ({
    ...plate(),
    receptacles: plate().receptacles.map((r, i) => (states[i] ? { ...r, transfers: states[i]!.map((state, n) => ({ n: n + 1, source: 1, state })) } : r)),
  });

  it("is the state the labware was made with until material comes in, then its transfer requests' common state", () => {
    expect(labwareState(plate())).toBe('pending');
    expect(labwareState({ ...plate(), state: 'passed' })).toBe('passed');
    expect(labwareState(withTransfers(['passed'], ['passed', 'passed']))).toBe('passed');
  });

  it('when mixed, the first present of started, qc_complete, pending, passed, failed, cancelled; else unknown', () => {
    expect(labwareState(withTransfers(['passed'], ['started'], ['failed']))).toBe('started');
    expect(labwareState(withTransfers(['passed'], ['cancelled'], ['qc_complete']))).toBe('qc_complete');
    expect(labwareState(withTransfers(['failed'], ['cancelled']))).toBe('failed');
    expect(labwareState(withTransfers(['processed_1'], ['processed_2']))).toBe('unknown');
  });

  it('is the submission of the open requests out of a receptacle, else the one its latest material came in for, else none', () => {
    const received: Receptacle = {
      state: 'pending',
      aliquots: [],
      transfers: [
        { n: 1, source: 1, state: 'pending', submission: 7 },
        { n: 2, source: 2, state: 'pending', submission: 9 },
        { n: 3, source: 3, state: 'pending' },
      ],
    };
    expect(poolOf(received, [4, 5])).toBe(4);
    expect(poolOf(received, [])).toBe(9);
    expect(poolOf({ state: 'pending', aliquots: [] }, [])).toBeNull();
  });

  it('a transfer carries the source pool onto the transfer request', () => {
    const moved = value(receiveTransfer({ id: 5001, receptacle: { state: 'pending', aliquots: [] }, pool: 12 }, plate(), B1));
    expect(moved.receptacles[1]!.transfers).toEqual([{ n: 1, source: 5001, state: 'pending', submission: 12 }]);
    expect(poolOf(moved.receptacles[1]!, [])).toBe(12);
  });
});
