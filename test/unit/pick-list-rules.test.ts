import { describe, expect, it } from 'vitest';
import { pickOrders, type Pick } from '#lib/domain/pick-lists.ts';
import { requestChangesOf, visibleOptions, workOrdersOf } from '#lib/domain/work-orders.ts';

/** The lab rules of pick lists (the reference's PickList, PickList::Pick) and work orders (WorkOrder, WorkOrder::Factory). */

const pick = (receptacle: number, aliquots: Pick['aliquots'], study: number | null = null, project: number | null = null): Pick => ({
  at: ['pick_attributes', String(receptacle)],
  field: 'source_receptacle_id',
  receptacle,
  aliquots,
  study,
  project,
});

describe('pickOrders', () => {
  it('groups picks by study and project, in the order first named; unnamed ones from the aliquots', () => {
    const result = pickOrders([pick(1, [{ study: 10, project: 20 }]), pick(2, [{ study: 11 }], null, 20), pick(3, [{ study: 99 }], 10, 20)]);
    expect(result).toEqual({
      ok: true,
      value: [
        { study: 10, project: 20, receptacles: [1, 3] },
        { study: 11, project: 20, receptacles: [2] },
      ],
    });
  });

  it('leaves the study of a pool of several studies unset (a cross-study order)', () => {
    const result = pickOrders([pick(1, [{ study: 10 }, { study: 11 }], null, 20)]);
    expect(result).toEqual({ ok: true, value: [{ study: null, project: 20, receptacles: [1] }] });
  });

  it('refuses an empty receptacle and a study or project nothing names, each at its member', () => {
    const result = pickOrders([pick(1, []), pick(2, [{ study: null }])]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.input)).toEqual([
      ['pick_attributes', '1', 'source_receptacle_id'],
      ['pick_attributes', '2', 'study_id'],
      ['pick_attributes', '2', 'project_id'],
    ]);
    expect(result.problems[0]!.detail).toContain('receptacle 1');
  });
});

describe('work orders', () => {
  const request = (id: number, asset: string, options: Record<string, unknown> = {}) => ({ id, asset, state: id === 1 ? 'started' : 'pending', options });

  it('makes one per source receptacle over its requests, its state and options its first request’s', () => {
    const planned = workOrdersOf([request(1, 'wells:1', { library_type: 'Rapid', data_type: '' }), request(2, 'wells:2'), request(3, 'wells:1')]);
    expect(planned.map((w) => [w.requests.map((r) => r.id), w.state, w.options, w.quantity.number, w.at_risk])).toEqual([
      [[1, 3], 'started', { library_type: 'Rapid' }, 2, false],
      [[2], 'pending', {}, 1, false],
    ]);
  });

  it('changes each request: the state as given, the risk in its options', () => {
    const changes = requestChangesOf([{ id: 1, options: { library_type: 'Rapid' } }], { state: 'passed', at_risk: true });
    expect(changes.get(1)).toEqual({ state: 'passed', options: { library_type: 'Rapid', customer_accepts_responsibility: true } });
    expect(requestChangesOf([{ id: 1, options: {} }], { state: 'failed' }).get(1)).toEqual({ state: 'failed' });
    expect(visibleOptions({ customer_accepts_responsibility: false, data_type: 'basecalls' })).toEqual({ data_type: 'basecalls' });
  });
});
