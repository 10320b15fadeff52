import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyReceptacles, type Contents, type Receptacle } from '#lib/domain/labware.ts';
import { applyMoves, destinyOf, openRequestOf, outerRequestOf, pairsNamedOnce, type MaterialMove } from '#lib/domain/material-moves.ts';
import { TRANSFER_REQUEST_STATES } from '#lib/domain/transfer-requests.ts';
import { filledName, needsDestination, poolTubeIsDestination, TRANSFER_TYPES, transferredOnce, tubeNaming } from '#lib/domain/transfers.ts';
import { problems, value } from '../support/outcomes.ts';

/**
 * The one planner of material moves (lib/domain/material-moves.ts) and the transfer types' table
 * (lib/domain/transfers.ts): what a move records and copies, the outer request rule (contract §6), and that
 * nothing moves out of a failed or cancelled receptacle (reference-behaviour.md §7.1).
 */

const labware = (size: number): Contents => ({ receptacles: emptyReceptacles(size), aliquotCount: 0 });
/** A source receptacle holding one untagged aliquot of `sample`, with one transfer request into it in `state` (none: never moved). */
const sourceOf = (sample: number, state?: (typeof TRANSFER_REQUEST_STATES)[number]): Receptacle => ({
  state: 'pending',
  aliquots: [{ n: 1, sample, study: null, tag: { oligo: `T${sample}`, index: sample }, tag2: null, library_type: null, request: 900 + sample }],
  ...(state ? { transfers: [{ n: 1, source: 1, state }] } : {}),
});
const label = (target: string, slot: number) => `${target} slot ${slot}`;

describe('applyMoves', () => {
  it('records one pending transfer request per move with its submission, outer request and volume, and copies carrying the outer request', () => {
    const targets = new Map([['plate', labware(4)]]);
    const moves: MaterialMove<string>[] = [
      { source: { id: 5001, receptacle: sourceOf(1), pool: 7, outerRequest: 70, volume: 2.5 }, target: 'plate', slot: 1 },
      { source: { id: 9001, receptacle: sourceOf(2), tube: true }, target: 'plate', slot: 1 },
    ];
    const after = value(applyMoves(targets, moves, label)).get('plate')!;
    expect(after.receptacles[0]!.transfers).toEqual([
      { n: 1, source: 5001, state: 'pending', submission: 7, outerRequest: 70, volume: 2.5 },
      { n: 2, source: 9001, sourceTube: true, state: 'pending' },
    ]);
    // The first copy carries the outer request; the second keeps its own (no outer request).
    expect(after.receptacles[0]!.aliquots.map((a) => [a.sample, a.request])).toEqual([
      [1, 70],
      [2, 902],
    ]);
    expect(after.transferRequestCount).toBe(2);
    expect(targets.get('plate')!.receptacles[0]!.aliquots).toEqual([]);
  });

  it('answers every problem of every move, at the input each names, and no contents', () => {
    const clash = { ...sourceOf(3), aliquots: [{ ...sourceOf(3).aliquots[0]!, tag: { oligo: 'T1', index: 1 } }] };
    const moves: MaterialMove<string>[] = [
      { source: { id: 1, receptacle: sourceOf(1) }, target: 'tube', slot: 1 },
      { source: { id: 2, receptacle: clash }, target: 'tube', slot: 1, input: ['transfer_requests_attributes', '1', 'source_asset'] },
    ];
    expect(problems(applyMoves(new Map([['tube', labware(1)]]), moves, label))).toEqual([
      {
        code: 'tag_clash',
        input: ['transfer_requests_attributes', '1', 'source_asset'],
        detail: 'tag clash: tube slot 1 already holds sample 1 with the same tags ("T1/-") as sample 3',
      },
    ]);
  });

  it('property: each move adds one transfer request to its receptacle; only sources not failed or cancelled give aliquots', () => {
    const state = fc.option(fc.constantFrom(...TRANSFER_REQUEST_STATES), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.record({ slot: fc.integer({ min: 1, max: 8 }), state }), { maxLength: 30 }), (picked) => {
        const moves = picked.map(
          ({ slot, state }, i): MaterialMove<number> => ({ source: { id: 1000 + i, receptacle: sourceOf(i + 1, state) }, target: 1, slot }),
        );
        const after = value(applyMoves(new Map([[1, labware(8)]]), moves, (_, slot) => `slot ${slot}`)).get(1)!;
        expect(after.transferRequestCount ?? 0).toBe(moves.length);
        for (let slot = 1; slot <= 8; slot++) {
          const into = picked.map((p, i) => ({ ...p, sample: i + 1 })).filter((p) => p.slot === slot);
          const receptacle = after.receptacles[slot - 1]!;
          expect(receptacle.transfers?.map((t) => t.source) ?? []).toEqual(into.map((p) => 1000 + p.sample - 1));
          const moved = into.filter((p) => p.state !== 'failed' && p.state !== 'cancelled').map((p) => p.sample);
          expect(receptacle.aliquots.map((a) => a.sample)).toEqual(moved);
        }
      }),
    );
  });
});

describe('outerRequestOf (contract §6)', () => {
  const open = [
    { id: 11, submission: 1 },
    { id: 22, submission: 2 },
  ];
  it.each([
    ['the one named wins', 99, 1, 99],
    ['else the open request out of the source in the submission', null, 2, 22],
    ['none in that submission: none (the copies keep their own)', null, 3, null],
    ['no submission: none', undefined, null, null],
  ] as const)('%s', (_, named, submission, expected) => {
    expect(outerRequestOf(named, submission, open)).toBe(expected);
  });
});

describe('the transfer types table', () => {
  it('gives every type a row: destination, naming of filled tubes, pool tube as destination', () => {
    expect(Object.fromEntries(TRANSFER_TYPES.map((t) => [t, [needsDestination(t), tubeNaming(t), poolTubeIsDestination(t)]]))).toEqual({
      'Transfer::BetweenPlateAndTubes': [false, 'none', false],
      'Transfer::BetweenPlatesBySubmission': [true, 'none', false],
      'Transfer::BetweenPlates': [true, 'none', false],
      'Transfer::BetweenSpecificTubes': [true, 'after source tube', false],
      'Transfer::BetweenTubesBySubmission': [false, 'after source tube', true],
      'Transfer::FromPlateToSpecificTubesByPool': [false, 'none', false],
      'Transfer::FromPlateToSpecificTubes': [false, 'none', false],
      'Transfer::FromPlateToTubeByMultiplex': [false, 'after wells', false],
      'Transfer::FromPlateToTubeBySubmission': [false, 'after wells', false],
      'Transfer::FromPlateToTube': [true, 'after wells', false],
    });
  });

  it('names filled labware as the reference does', () => {
    const source = { barcode: 'DN1S', size: 96, name: 'Tube X' };
    expect(filledName('Transfer::FromPlateToTube', ['B1', 'A1', 'H12'], source)).toBe('DN1S A1:H12');
    expect(filledName('Transfer::FromPlateToTube', [], source)).toBeUndefined();
    expect(filledName('Transfer::BetweenSpecificTubes', [], source)).toBe('Tube X');
    expect(filledName('Transfer::BetweenSpecificTubes', [], { ...source, name: null })).toBeUndefined();
    expect(filledName('Transfer::BetweenPlates', ['A1'], source)).toBeUndefined();
  });

  it('a known destination takes material from one source once', () => {
    const destination = { name: 'plates 2', receptacles: [{ transfers: [{ n: 1, source: 1001, state: 'pending' as const }] }] };
    expect(transferredOnce('Transfer::BetweenPlates', destination, { name: 'plates 1', receptacles: new Set([1001]) })).toEqual([
      {
        code: 'transferred_twice',
        input: ['destination'],
        detail: 'can only be transferred to once from the source: plates 2 already holds material of plates 1',
      },
    ]);
    expect(transferredOnce('Transfer::BetweenPlates', destination, { name: 'plates 3', receptacles: new Set([3001]) })).toEqual([]);
    expect(transferredOnce('Transfer::FromPlateToTubeBySubmission', destination, { name: 'plates 1', receptacles: new Set([1001]) })).toEqual([]);
  });
});

describe('the open requests out of a receptacle and where its material goes on', () => {
  it('takes a request as open only while it is open and of a submission', () => {
    expect(openRequestOf({ id: 3, state: 'pending', submission: 8 })).toEqual({ id: 3, submission: 8 });
    expect(openRequestOf({ id: 3, state: 'passed', submission: 8 })).toBeUndefined();
    expect(openRequestOf({ id: 3, state: 'pending', submission: null })).toBeUndefined();
    expect(openRequestOf(undefined)).toBeUndefined();
  });

  it("gives a receptacle the pool of the first open request out of it, and that request as the copies' outer request", () => {
    const open = [
      { id: 11, submission: 4 },
      { id: 12, submission: 5 },
    ];
    expect(destinyOf(sourceOf(1), open)).toEqual({ pool: 4, outerRequest: 11 });
    expect(destinyOf(sourceOf(1), [])).toEqual({ pool: null, outerRequest: null });
  });
});

describe('pairsNamedOnce', () => {
  const names = (i: number) => ({ source: `s${i}`, target: `t${i}`, targetField: 'target_asset' });
  it('refuses each later entry naming a source into the same target, at its target, naming the entry before it', () => {
    const found = pairsNamedOnce([
      { source: 1, target: 2, at: ['list', '0'], names: names(0) },
      { source: 1, target: 3, at: ['list', '1'], names: names(1) },
      { source: 1, target: 2, at: ['list', '2'], names: names(2) },
      { source: 1, target: 2, at: ['list', '3'], names: names(3) },
    ]);
    expect(found.map((p) => [p.code, p.input])).toEqual([
      ['given_twice', ['list', '2', 'target_asset']],
      ['given_twice', ['list', '3', 'target_asset']],
    ]);
    expect(found[1]!.detail).toBe('entry 3 target_asset: t3 already takes s3 (entry 2); name each source and target pair once');
  });

  it('accepts every pair named once', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.nat(20), fc.nat(20)), { selector: ([a, b]) => `${a}>${b}` }), (pairs) => {
        expect(pairsNamedOnce(pairs.map(([source, target], i) => ({ source, target, at: [String(i)], names: names(i) })))).toEqual([]);
      }),
    );
  });
});
