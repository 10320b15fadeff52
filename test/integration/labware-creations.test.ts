import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createTube, purposeId, rel } from '../support/fixtures.ts';
import { adminUuid, filledPlate, uuidOf } from '../support/lab.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * plate_conversions and tube_from_plate_creations (interface.md, contract §2, reference-behaviour.md §2.5,
 * §2.6): labware given a purpose or made from a plate, linked as a child, no material moved; the made or
 * converted labware under `target` / `child` and at the related endpoints limber reads.
 */

beforeAll(freshStore);

let user: string;
let userId: string;
beforeAll(async () => {
  [user, userId] = await Promise.all([adminUuid(), idOf('users', 'login', 'admin')]);
});

describe('POST /plate_conversions', () => {
  it("gives the target the purpose and makes it the parent's child (limber's deprecated attributes); the target at /target", async () => {
    const { plate: parent } = await filledPlate(1);
    const target = await createPlate('Tag Plate');
    const library = await uuidOf('plate_purposes', 'name', 'Library Plate');
    const res = await call('POST', '/api/v2/plate_conversions', {
      body: doc('plate_conversions', { parent_uuid: parent.attributes.uuid, purpose_uuid: library, target_uuid: target.attributes.uuid, user_uuid: user }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const related = await call('GET', `/api/v2/plate_conversions/${res.body.data.id}/target`);
    expect(related.body.data).toMatchObject({ type: 'plates', id: target.id, attributes: { uuid: target.attributes.uuid } });
    const plate = await call('GET', `/api/v2/plates/${target.id}?include=purpose,parents`);
    // A labware's purpose is typed `purposes` (contract §7.4).
    expect(plate.body.data.relationships.purpose.data).toEqual({ type: 'purposes', id: await purposeId('plate_purposes', 'Library Plate') });
    expect(plate.body.data.relationships.parents.data).toEqual([{ type: 'plates', id: parent.id }]);
    const children = await call('GET', `/api/v2/plates/${parent.id}/child_plates`);
    expect(children.body.data.map((p: any) => p.id)).toEqual([target.id]);
    // Listed by the purpose it now has, no longer by the one it had.
    const tagPlates = await call('GET', '/api/v2/plates?filter[purpose_name]=Tag%20Plate&page[size]=100');
    expect(tagPlates.body.data.map((p: any) => p.id)).not.toContain(target.id);
  });

  it('converts without a parent (gatekeeper), by relationships', async () => {
    const target = await createPlate('Tag Plate');
    const res = await call('POST', '/api/v2/plate_conversions', {
      body: doc(
        'plate_conversions',
        {},
        {
          purpose: rel('plate_purposes', await purposeId('plate_purposes', 'Working Dilution')),
          target: rel('plates', target.id),
          user: rel('users', userId),
        },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.relationships.parent).toBeDefined();
    const plate = await call('GET', `/api/v2/plates/${target.id}`);
    expect(plate.body.data.relationships.purpose).toBeDefined();
    expect((await call('GET', `/api/v2/plates/${target.id}/parents`)).body.data).toEqual([]);
    expect((await call('GET', `/api/v2/plates/${target.id}/purpose`)).body.data.attributes.name).toBe('Working Dilution');
  });

  it('refuses, writing nothing: no target, purpose or user (422 each), an unknown uuid (404), a tube as target, a plate as its own parent, PATCH (405)', async () => {
    const target = await createPlate();
    const missing = await refused('POST', '/api/v2/plate_conversions', doc('plate_conversions', {}));
    for (const name of ['target', 'purpose', 'user']) expectError(missing, 422, 'required', `/data/relationships/${name}`);
    expectError(
      await refused('POST', '/api/v2/plate_conversions', doc('plate_conversions', { target_uuid: '00000000-0000-4000-8000-000000000000' })),
      404,
      'record_not_found',
      '/data/attributes/target_uuid',
    );
    const tube = await createTube();
    const purpose = rel('plate_purposes', await purposeId('plate_purposes', 'Library Plate'));
    expectError(
      await refused('POST', '/api/v2/plate_conversions', doc('plate_conversions', {}, { target: rel('tubes', tube.id), purpose, user: rel('users', userId) })),
      400,
      'type_mismatch',
    );
    expectError(
      await refused(
        'POST',
        '/api/v2/plate_conversions',
        doc('plate_conversions', {}, { target: rel('plates', target.id), parent: rel('plates', target.id), purpose, user: rel('users', userId) }),
      ),
      422,
      'invalid_value',
      '/data/relationships/parent',
    );
    const made = await call('POST', '/api/v2/plate_conversions', {
      body: doc('plate_conversions', {}, { target: rel('plates', target.id), purpose, user: rel('users', userId) }),
    });
    expect(made.status).toBe(201);
    expectError(await refused('PATCH', `/api/v2/plate_conversions/${made.body.data.id}`, doc('plate_conversions', {}, undefined, made.body.data.id)), 405);
  });
});

describe('POST /tube_from_plate_creations', () => {
  it('makes one empty tube of the child purpose with a fresh barcode, a child of the plate; the tube at /child', async () => {
    const { plate } = await filledPlate(1);
    const purpose = await uuidOf('tube_purposes', 'name', 'Library Tube');
    const body = doc('tube_from_plate_creations', { child_purpose_uuid: purpose, parent_uuid: plate.attributes.uuid, user_uuid: user });
    const [first, second] = [
      await call('POST', '/api/v2/tube_from_plate_creations', { body }),
      await call('POST', '/api/v2/tube_from_plate_creations', { body }),
    ];
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(second.status).toBe(201);
    const [tube, other] = await Promise.all(
      [first, second].map(async (res) => (await call('GET', `/api/v2/tube_from_plate_creations/${res.body.data.id}/child`)).body.data),
    );
    expect(tube.type).toBe('tubes');
    expect(tube.attributes.labware_barcode.human_barcode).toMatch(/^NT\d+[A-W]$/);
    expect(other.attributes.labware_barcode.human_barcode).not.toBe(tube.attributes.labware_barcode.human_barcode);
    expect((await call('GET', `/api/v2/tubes/${tube.id}/purpose`)).body.data.attributes.name).toBe('Library Tube');
    expect((await call('GET', `/api/v2/tubes/${tube.id}/parents`)).body.data.map((p: any) => p.id)).toEqual([plate.id]);
    expect((await call('GET', `/api/v2/tubes/${tube.id}/aliquots`)).body.data).toEqual([]);
    const children = await call('GET', `/api/v2/plates/${plate.id}/children`);
    expect(children.body.data.map((c: any) => c.id).sort()).toEqual([tube.id, other.id].sort());
  });

  it('refuses, writing nothing: `child` sent (400), no parent, purpose or user (422), a tube as parent, PATCH (405)', async () => {
    const { plate } = await filledPlate(1);
    const purpose = rel('tube_purposes', await purposeId('tube_purposes', 'Library Tube'));
    const tube = await createTube();
    expectError(
      await refused(
        'POST',
        '/api/v2/tube_from_plate_creations',
        doc(
          'tube_from_plate_creations',
          {},
          { child: rel('tubes', tube.id), child_purpose: purpose, parent: rel('plates', plate.id), user: rel('users', userId) },
        ),
      ),
      400,
      undefined,
      '/data/relationships/child',
    );
    const missing = await refused('POST', '/api/v2/tube_from_plate_creations', doc('tube_from_plate_creations', {}));
    for (const name of ['parent', 'child_purpose', 'user']) expectError(missing, 422, 'required', `/data/relationships/${name}`);
    expectError(
      await refused(
        'POST',
        '/api/v2/tube_from_plate_creations',
        doc('tube_from_plate_creations', {}, { child_purpose: purpose, parent: rel('tubes', tube.id), user: rel('users', userId) }),
      ),
      400,
      'type_mismatch',
    );
    const made = await call('POST', '/api/v2/tube_from_plate_creations', {
      body: doc('tube_from_plate_creations', {}, { child_purpose: purpose, parent: rel('plates', plate.id), user: rel('users', userId) }),
    });
    expect(made.status).toBe(201);
    expectError(
      await refused('PATCH', `/api/v2/tube_from_plate_creations/${made.body.data.id}`, doc('tube_from_plate_creations', {}, undefined, made.body.data.id)),
      405,
    );
  });
});
