import { describe, expect, it } from 'vitest';
import { layoutForSize } from '#lib/domain/geometry.ts';
import { checkPlateEvents, generatedSangerSampleId, placeRecipients, planContents, unpadCoordinate } from '#lib/domain/heron.ts';

/** The Heron reception's rules (lib/domain/heron.ts) against the reference's factories and their specs. */

const plate = layoutForSize(96)!;
const columns = { sample: new Set(['name', 'control', 'sanger_sample_id']), metadata: new Set(['phenotype', 'supplier_name']) };

describe('Heron reception rules', () => {
  it('unpads coordinates as the reference does (A01 → A1), and leaves what is no coordinate as sent', () => {
    expect(['A01', 'h12', 'B1', 'A001', 'Z', 'A0'].map(unpadCoordinate)).toEqual(['A1', 'H12', 'B1', 'A1', 'Z', 'A0']);
  });

  it('places each key on the grid once, whatever its padding', () => {
    expect(placeRecipients('wells', ['A01', 'H12'], plate)).toEqual({ ok: true, value: ['A1', 'H12'] });
    const refused = placeRecipients('tubes', ['I1', 'A13', 'A1', 'a01'], plate);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.problems.map((p) => [p.code, p.input.join('.')])).toEqual([
      ['not_a_coordinate', 'tubes.I1'],
      ['not_a_coordinate', 'tubes.A13'],
      ['coordinate_twice', 'tubes.a01'],
    ]);
  });

  it('splits a content between the sample and its metadata, the labware study before the content one', () => {
    const planned = planContents(
      'wells',
      {
        A01: {
          content: [
            { name: 'n', phenotype: 'p', study_uuid: 'S2' },
            { supplier_name: 's', study_uuid: 'S2' },
          ],
        },
        B1: {},
      },
      ['A1', 'B1'],
      plate,
      columns,
      'S1',
    );
    expect(planned).toEqual({
      ok: true,
      value: [
        { coordinate: 'A1', slot: 1, input: ['wells', 'A01', 'content', '0'], study: 'S1', sample: { name: 'n' }, metadata: { phenotype: 'p' } },
        { coordinate: 'A1', slot: 1, input: ['wells', 'A01', 'content', '1'], study: 'S1', sample: {}, metadata: { supplier_name: 's' } },
      ],
    });
    expect(planContents('wells', { H12: { content: { sample_uuid: 'u' } } }, ['H12'], plate, columns, undefined)).toEqual({
      ok: true,
      value: [{ coordinate: 'H12', slot: 96, input: ['wells', 'H12', 'content'], existing: 'u', sample: {}, metadata: {} }],
    });
  });

  it('finds every problem the reference does: unknown fields, fields beside sample_uuid, no study, a content that is no object', () => {
    const planned = planContents(
      'wells',
      { A1: { content: { asdf: 1 } }, B1: { content: { sample_uuid: 'u', phenotype: 'x' } }, C1: { content: 'x' } },
      ['A1', 'B1', 'C1'],
      plate,
      columns,
      undefined,
    );
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.problems.map((p) => [p.code, p.input.join('.')])).toEqual([
      ['unknown_field', 'wells.A1.content.asdf'],
      ['blank', 'wells.A1.content.study_uuid'],
      ['not_assignable', 'wells.B1.content.phenotype'],
      ['not_a_map', 'wells.C1.content'],
    ]);
  });

  it('names each new sample once, in any case', () => {
    const planned = planContents('wells', { A1: { content: { name: 'RNA-1' } }, B1: { content: { name: 'rna-1' } } }, ['A1', 'B1'], plate, columns, 'S1');
    expect(planned.ok ? [] : planned.problems.map((p) => [p.code, p.input.join('.'), p.detail])).toEqual([
      ['given_twice', 'wells.B1.content.name', '"rna-1" is the name of the sample at A1 too'],
    ]);
  });

  it('takes only cherrypicking events with a robot, source labware and samples', () => {
    const subjects = ['robot', 'cherrypicking_source_labware', 'sample'].map((role_type) => ({ role_type }));
    expect(checkPlateEvents([{ event: { event_type: 'lh_beckman_cp_destination_created', subjects } }])).toEqual([]);
    expect(
      checkPlateEvents([
        { event: { event_type: 'lh_beckman_cp_destination_created', subjects: subjects.slice(1) } },
        'x',
        { event: { event_type: 'other' } },
      ]).map((p) => [p.code, p.input.join('.')]),
    ).toEqual([
      ['blank', 'events.0.event.subjects'],
      ['not_a_map', 'events.1'],
      ['not_allowed', 'events.2.event.event_type'],
    ]);
  });
  it("takes a content's uuid lowercased, refuses one that is none or given twice; names a sample after its given sanger sample id", () => {
    const uuid = '0F8FAD5B-D9CB-469F-A165-70867728950E';
    const planned = planContents(
      'wells',
      { A1: { content: { uuid, sanger_sample_id: 'S1X' } }, B1: { content: { uuid: uuid.toLowerCase() } }, C1: { content: { uuid: 'nope', name: 'c' } } },
      ['A1', 'B1', 'C1'],
      plate,
      columns,
      'S1',
    );
    expect(planned.ok ? [] : planned.problems.map((p) => [p.code, p.input.join('.')])).toEqual([
      ['not_a_uuid', 'wells.C1.content.uuid'],
      ['given_twice', 'wells.B1.content.uuid'],
    ]);
    const one = planContents('wells', { A1: { content: { uuid, sanger_sample_id: 'S1X' } } }, ['A1'], plate, columns, 'S1');
    expect(one.ok && one.value[0]).toMatchObject({ uuid: uuid.toLowerCase(), sample: { name: 'S1X', sanger_sample_id: 'S1X' } });
  });

  it("makes a sanger sample id of the study's abbreviation and the sample's number, none without an abbreviation", () => {
    expect(generatedSangerSampleId('STDB', 42)).toBe('STDB42');
    expect(generatedSangerSampleId(undefined, 42)).toBeUndefined();
  });
});
