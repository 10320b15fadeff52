import { beforeAll, describe, expect, it } from 'vitest';
import { auditedTransactionItems, MAX_QCABLES_PER_CREATOR, mostInOneTransaction, qcableCreatorItems } from '#lib/domain/budgets.ts';
import { call, doc, idOf } from '../support/api.ts';
import { rel } from '../support/fixtures.ts';
import { lotId } from '../support/qc.ts';
import { expectError, statuses } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * Lot registration (POST lots) and qcable creators (contract §7.5; the reference's LotResource and
 * QcableCreatorResource with their models): what they write, every refusal writing nothing, and 50
 * writers at once on distinct and on shared records. gatekeeper's own calls: gatekeeper.test.ts.
 */

beforeAll(freshStore);

const WRITERS = 50;
let user: string;
let tagPlates: { uuid: string };
let template: string;

beforeAll(async () => {
  user = await idOf('users', 'login', 'admin');
  const lotTypes = await call('GET', '/api/v2/lot_types?filter[name]=Tag Plates');
  tagPlates = { uuid: lotTypes.body.data[0].attributes.uuid };
  template = await idOf('tag_layout_templates', 'name', 'Test i7 column');
});

const lotDoc = (lotNumber: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) =>
  doc(
    'lots',
    {
      lot_number: lotNumber,
      lot_type_uuid: tagPlates.uuid,
      template_type: 'TagLayoutTemplate',
      template_id: template,
      received_at: '2026-12-01',
      ...attributes,
    },
    relationships ?? { user: rel('users', user) },
  );
const creatorDoc = (lot: string, attributes: Record<string, unknown>) =>
  doc('qcable_creators', attributes, { lot: rel('lots', lot), user: rel('users', user) });

async function registerLot(lotNumber: string): Promise<any> {
  const res = await call('POST', '/api/v2/lots', { body: lotDoc(lotNumber) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function qcablesOf(creatorId: string): Promise<any[]> {
  const res = await call('GET', `/api/v2/qcable_creators/${creatorId}/qcables`);
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('POST lots', () => {
  it('registers a lot with its user, type and template; renders the names and the receipt date; events lots.created', async () => {
    const lot = await registerLot('REG-1');
    expect(lot.attributes).toMatchObject({ lot_number: 'REG-1', lot_type_name: 'Tag Plates', template_name: 'Test i7 column', received_at: '2026-12-01' });
    const read = await call('GET', `/api/v2/lots/${lot.id}?include=user,template`);
    expect(read.body.included.map((r: any) => [r.type, r.id])).toEqual(
      expect.arrayContaining([
        ['users', user],
        ['tag_layout_templates', template],
      ]),
    );
    expect((await outboxEvents()).filter((e) => e.type === 'lots.created' && e.data.id === lot.id)).toHaveLength(1);
  });

  it('takes a time as received_at (its date kept) and the lot type and user as relationships', async () => {
    const lotType = await idOf('lot_types', 'name', 'Tag Plates');
    const res = await call('POST', '/api/v2/lots', {
      body: lotDoc(
        'REG-2',
        { lot_type_uuid: undefined, received_at: '2026-12-02T10:00:00Z' },
        { user: rel('users', user), lot_type: rel('lot_types', lotType) },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes.received_at).toBe('2026-12-02');
  });

  it.each([
    ['a lot number taken (ignoring case)', { lot_number: 'reg-1' }, 422, '/data/attributes/lot_number'],
    ['no received_at', { received_at: null }, 422, '/data/attributes/received_at'],
    ['a received_at that is no date', { received_at: 'yesterday' }, 422, '/data/attributes/received_at'],
    ['a template class other than the lot type’s', { template_type: 'PlateTemplate' }, 422, '/data/attributes/template_type'],
    ['a template id naming nothing', { template_id: '999999' }, 404, '/data/attributes/template_id'],
    ['a template id that is no id', { template_id: 'x' }, 422, '/data/attributes/template_id'],
    ['no lot type', { lot_type_uuid: null }, 422, '/data/relationships/lot_type'],
    ['an unknown lot type uuid', { lot_type_uuid: '00000000-0000-4000-8000-000000000000' }, 404, '/data/attributes/lot_type_uuid'],
  ])('refuses %s, writing nothing', async (_what, attributes, status, pointer) => {
    const res = await refused('POST', '/api/v2/lots', lotDoc('REG-BAD', attributes));
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
  });

  it('refuses a lot without its user (the reference requires one), writing nothing', async () => {
    const res = await refused('POST', '/api/v2/lots', lotDoc('REG-BAD', {}, {}));
    expectError(res, 422, 'required', '/data/relationships/user');
  });

  it('refuses a lot of QC Plates (PlateTemplate: not served here), writing nothing', async () => {
    const qc = (await call('GET', '/api/v2/lot_types?filter[name]=QC Plates')).body.data[0].attributes.uuid;
    const res = await refused('POST', '/api/v2/lots', lotDoc('REG-BAD', { lot_type_uuid: qc, template_type: 'PlateTemplate' }));
    expectError(res, 422, 'invalid_value', '/data/attributes/template_type');
    expect(res.body.errors[0].detail).toContain('not served');
  });

  it(`${WRITERS} lots at once: distinct numbers all land; one number sent by all lands once`, async () => {
    const distinct = await Promise.all(Array.from({ length: WRITERS }, (_, i) => call('POST', '/api/v2/lots', { body: lotDoc(`BURST-${i}`) })));
    expect(statuses(distinct)).toEqual([`201 × ${WRITERS}`]);
    const shared = await Promise.all(Array.from({ length: WRITERS }, () => call('POST', '/api/v2/lots', { body: lotDoc('BURST-SHARED') })));
    expect(shared.filter((r) => r.status === 201)).toHaveLength(1);
    expect(shared.every((r) => r.status === 201 || r.status === 409 || r.status === 422)).toBe(true);
    expect((await call('GET', '/api/v2/lots?filter[lot_number]=BURST-SHARED')).body.data).toHaveLength(1);
  });
});

describe('POST qcable_creators', () => {
  it('makes count qcables, created, on new Tag Plate plates; the creator links them and they link it; events', async () => {
    const lot = await lotId('LOT-0001');
    const res = await call('POST', '/api/v2/qcable_creators', { body: creatorDoc(lot, { count: 3 }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ count: 3, barcodes: null });
    const qcables = await qcablesOf(res.body.data.id);
    expect(qcables.map((q) => q.attributes.state)).toEqual(['created', 'created', 'created']);
    const plate = await call('GET', `/api/v2/qcables/${qcables[0].id}/labware?include=purpose`);
    expect(plate.body.data.type).toBe('plates');
    expect(plate.body.included[0].attributes.name).toBe('Tag Plate');
    expect((await call('GET', `/api/v2/qcables/${qcables[0].id}/relationships/qcable_creator`)).body.data).toEqual({
      type: 'qcable_creators',
      id: res.body.data.id,
    });
    const read = await call('GET', `/api/v2/qcable_creators/${res.body.data.id}?include=lot,user`);
    expect(read.body.included.map((r: any) => r.type).sort()).toEqual(['lots', 'users']);
    const events = await outboxEvents();
    expect(events.filter((e) => e.type === 'qcable_creators.created' && e.data.id === res.body.data.id)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'qcables.created' && qcables.some((q) => q.id === e.data.id))).toHaveLength(3);
  });

  it('makes one qcable per barcode given as a list, on plates with those barcodes', async () => {
    const res = await call('POST', '/api/v2/qcable_creators', { body: creatorDoc(await lotId('LOT-0001'), { barcodes: ['LIST-1', 'LIST-2'] }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await qcablesOf(res.body.data.id)).map((q) => q.attributes.labware_barcode.human_barcode)).toEqual(['LIST-1', 'LIST-2']);
  });

  it.each([
    ['neither count nor barcodes', {}, 'invalid_value', '/data/attributes/count'],
    ['both count and barcodes', { count: 1, barcodes: 'BOTH-1' }, 'invalid_value', '/data/attributes/barcodes'],
    ['a count of 0', { count: 0 }, 'invalid_value', '/data/attributes/count'],
    ['a count past the bound of one request', { count: MAX_QCABLES_PER_CREATOR + 1 }, 'too_large', '/data/attributes/count'],
    ['an empty barcode', { barcodes: 'E-1,,E-2' }, 'invalid_value', '/data/attributes/barcodes'],
    ['a barcode given twice', { barcodes: ['TWICE-1', 'twice-1'] }, 'invalid_value', '/data/attributes/barcodes/1'],
    ['a barcode already on a labware', { barcodes: 'LIST-1' }, 'not_unique', '/data/attributes/barcodes'],
  ])('refuses %s, writing nothing', async (_what, attributes, code, pointer) => {
    const res = await refused('POST', '/api/v2/qcable_creators', creatorDoc(await lotId('LOT-0001'), attributes));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors.map((e: any) => [e.code, e.source?.pointer])).toContainEqual([code, pointer]);
  });

  it('refuses a lot whose type names no target purpose (QC Plates), and a missing lot or user, writing nothing', async () => {
    expectError(
      await refused('POST', '/api/v2/qcable_creators', creatorDoc(await lotId('LOT-0003'), { count: 1 })),
      422,
      'invalid_value',
      '/data/relationships/lot',
    );
    const noLot = await refused('POST', '/api/v2/qcable_creators', doc('qcable_creators', { count: 1 }, { user: rel('users', user) }));
    expectError(noLot, 422, 'required', '/data/relationships/lot');
    const noUser = await refused('POST', '/api/v2/qcable_creators', doc('qcable_creators', { count: 1 }, { lot: rel('lots', await lotId('LOT-0001')) }));
    expectError(noUser, 422, 'required', '/data/relationships/user');
  });

  // Each qcable's labware gains an audit entry (docs/decisions.md, "Audit trail"), so the most one transaction holds counts them.
  const ONE_TRANSACTION = mostInOneTransaction((n) => auditedTransactionItems(qcableCreatorItems(n), n));
  it(`costs the same DynamoDB calls for 2 qcables as for ${ONE_TRANSACTION}, the most one transaction holds (no call per qcable)`, async () => {
    const lot = await lotId('LOT-0002');
    const post = (count: number) => call('POST', '/api/v2/qcable_creators', { body: creatorDoc(lot, { count }) });
    expect((await post(1)).status).toBe(201); // the lot's type and purpose now in the reference cache, as for every later write
    const [two, most] = [await post(2), await post(ONE_TRANSACTION)];
    expect([two.status, most.status]).toEqual([201, 201]);
    expect(most.calls).toBe(two.calls);
    expect((await post(ONE_TRANSACTION + 1)).calls).toBeGreaterThan(two.calls); // one more: a write of several transactions
  });

  it(`${WRITERS} creators at once on one lot: all land, every qcable made, every barcode unique`, async () => {
    const lot = await registerLot('SHARED-LOT');
    const results = await Promise.all(
      Array.from({ length: WRITERS }, () => call('POST', '/api/v2/qcable_creators', { body: creatorDoc(lot.id, { count: 2 }) })),
    );
    expect(statuses(results)).toEqual([`201 × ${WRITERS}`]);
    const listed = await call('GET', `/api/v2/lots/${lot.id}/qcables?page[size]=500`);
    const barcodes = listed.body.data.map((q: any) => q.attributes.labware_barcode.human_barcode);
    expect(barcodes).toHaveLength(2 * WRITERS);
    expect(new Set(barcodes).size).toBe(2 * WRITERS);
  });

  it(`${WRITERS} creators at once on distinct lots all land; ${WRITERS} giving one barcode: exactly one lands`, async () => {
    const lots = await Promise.all(Array.from({ length: WRITERS }, (_, i) => registerLot(`DISTINCT-LOT-${i}`)));
    const distinct = await Promise.all(lots.map((lot) => call('POST', '/api/v2/qcable_creators', { body: creatorDoc(lot.id, { count: 1 }) })));
    expect(statuses(distinct)).toEqual([`201 × ${WRITERS}`]);
    const same = await Promise.all(lots.map((lot) => call('POST', '/api/v2/qcable_creators', { body: creatorDoc(lot.id, { barcodes: 'CONTESTED-1' }) })));
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expect(same.every((r) => r.status === 201 || r.status === 409 || r.status === 422)).toBe(true);
    expect((await call('GET', '/api/v2/qcables?filter[barcode]=CONTESTED-1')).body.data).toHaveLength(1);
  });
});
