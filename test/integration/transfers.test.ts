import { beforeAll, describe, expect, it } from 'vitest';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createRack, createTube, rel } from '../support/fixtures.ts';
import { adminUuid, contentsOf, filledPlate, postTransfer, templateUuid } from '../support/lab.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * transfers (interface.md, contract §2, reference-behaviour.md §4.1) over HTTP: templates by uuid, the
 * deprecated `*_uuid` attributes and relationships, aliquots copied (never moved) with one transfer
 * request per copy, what each refusal answers and that it writes nothing. The ten types' rules are
 * unit-tested in test/unit/transfers.test.ts; whole workflows in lab-workflows.test.ts.
 */

beforeAll(freshStore);

let user: string;
let userId: string;
let stamp: string;
let custom: string;
beforeAll(async () => {
  [user, userId, stamp, custom] = await Promise.all([
    adminUuid(),
    idOf('users', 'login', 'admin'),
    templateUuid('Transfer columns 1-12'),
    templateUuid('Custom pooling'),
  ]);
});

describe('reference data', () => {
  it('serves every transfer template of contract §5 with its type and map, found by name', async () => {
    const res = await call('GET', '/api/v2/transfer_templates?page[size]=100');
    expect(res.status).toBe(200);
    const byName = new Map<string, any>(res.body.data.map((t: any) => [t.attributes.name, t.attributes]));
    for (let n = 1; n <= 12; n++) expect(byName.get(`Transfer columns 1-${n}`)).toMatchObject({ transfer_type: 'Transfer::BetweenPlates' });
    // DynamoDB keeps maps unordered: compare the entries, not their order.
    expect(Object.keys(byName.get('Transfer columns 1-1').transfers).sort()).toEqual(['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1']);
    expect(Object.keys(byName.get('Transfer columns 1-12').transfers)).toHaveLength(96);
    expect(byName.get('Flip Plate').transfers).toMatchObject({ A1: 'H12', H12: 'A1', B1: 'G12' });
    expect(byName.get('Pooling rows to first column').transfers).toMatchObject({ A12: 'A1', C5: 'C1' });
    expect(byName.get('Custom pooling').transfers).toBeNull();
    expect(byName.get('Whole plate to tube').transfers).toHaveLength(96);
    expect(byName.get('384 plate to tube').transfers).toHaveLength(384);
    expect(
      Object.fromEntries(
        [
          'Pool wells based on submission',
          'Transfer wells to MX library tubes by submission',
          'Transfer wells to MX library tubes by multiplex',
          'Transfer from tube to tube by submission',
          'Transfer between specific tubes',
        ].map((name) => [name, byName.get(name).transfer_type]),
      ),
    ).toEqual({
      'Pool wells based on submission': 'Transfer::BetweenPlatesBySubmission',
      'Transfer wells to MX library tubes by submission': 'Transfer::FromPlateToTubeBySubmission',
      'Transfer wells to MX library tubes by multiplex': 'Transfer::FromPlateToTubeByMultiplex',
      'Transfer from tube to tube by submission': 'Transfer::BetweenTubesBySubmission',
      'Transfer between specific tubes': 'Transfer::BetweenSpecificTubes',
    });
    const one = await call('GET', '/api/v2/transfer_templates?filter[name]=Flip%20Plate&fields[transfer_templates]=uuid,name');
    expect(one.body.data.map((t: any) => t.attributes)).toEqual([{ uuid: expect.any(String), name: 'Flip Plate' }]);
  });

  it('serves tag groups (tags by index with oligos) and tag layout templates naming them', async () => {
    const groups = await call('GET', '/api/v2/tag_groups?filter[name]=Test%20Tags%20i7');
    const tags = groups.body.data[0].attributes.tags;
    expect(tags).toHaveLength(96);
    expect(tags.map((t: any) => t.index)).toEqual(Array.from({ length: 96 }, (_, i) => i + 1));
    expect(tags.every((t: any) => /^[ACGT]{8}$/.test(t.oligo))).toBe(true);
    const short = await call('GET', '/api/v2/tag_groups?filter[name]=Short%20Tags');
    expect(short.body.data[0].attributes.tags).toHaveLength(8);
    const templates = await call('GET', '/api/v2/tag_layout_templates?filter[name]=Test%20dual%20column&include=tag_group,tag2_group');
    const template = templates.body.data[0];
    expect(template.attributes).toMatchObject({ name: 'Test dual column', direction: 'column', walking_by: 'wells of plate' });
    expect(templates.body.included.map((g: any) => g.attributes.name).sort()).toEqual(['Test Tags i5', 'Test Tags i7']);
  });

  it('links each lot of tag plates to its template, under both names limber includes', async () => {
    const res = await call('GET', '/api/v2/lots?filter[lot_number]=LOT-0002&include=template,tag_layout_template');
    const lot = res.body.data[0];
    expect(lot.relationships.template.data).toEqual(lot.relationships.tag_layout_template.data);
    expect(res.body.included).toHaveLength(1);
    expect(res.body.included[0].attributes.name).toBe('Test dual column');
  });
});

describe('POST /transfers', () => {
  it('stamps a plate: aliquots copied into the same wells, one transfer request each, the map pruned to the wells used', async () => {
    const { plate: source, samples } = await filledPlate(3);
    const destination = await createPlate('Working Dilution');
    const res = await postTransfer({ template: stamp, source: source.attributes.uuid, destination: destination.attributes.uuid, user });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ transfer_type: 'Transfer::BetweenPlates', transfers: { A1: 'A1', B1: 'B1', C1: 'C1' } });
    expect(res.body.data.attributes).not.toHaveProperty('source_uuid');
    const copied = await contentsOf('plates', destination.id);
    expect([...copied.keys()]).toEqual(['A1', 'B1', 'C1']);
    for (const [well, sample] of samples) expect(copied.get(well)).toEqual([{ sample, tag: null, tag2: null }]);
    // Copied, not moved: the source still holds its samples.
    expect([...(await contentsOf('plates', source.id)).keys()]).toEqual(['A1', 'B1', 'C1']);

    const read = await call('GET', `/api/v2/transfers/${res.body.data.id}?include=source,destination,user`);
    expect(read.body.data.relationships.source.data).toEqual({ type: 'plates', id: source.id });
    expect(read.body.data.relationships.destination.data).toEqual({ type: 'plates', id: destination.id });
    expect(read.body.data.relationships.user.data).toEqual({ type: 'users', id: userId });
    const parents = await call('GET', `/api/v2/plates/${destination.id}/parents`);
    expect(parents.body.data.map((p: any) => p.id)).toEqual([source.id]);
    expect((await call('GET', `/api/v2/plates/${destination.id}`)).body.data.attributes.state).toBe('pending');

    const events = (await outboxEvents()).filter((e) => e.resource.id === res.body.data.id || e.resource.id === destination.id);
    expect(events.map((e) => e.type).sort()).toContain('transfers.created');
    expect(events.map((e) => e.type)).toContain('plates.updated');
  });

  it('takes relationships, which win over the deprecated uuid attributes', async () => {
    const { plate: source } = await filledPlate(1);
    const [destination, decoy] = [await createPlate(), await createPlate()];
    const res = await call('POST', '/api/v2/transfers', {
      body: doc(
        'transfers',
        { transfer_template_uuid: stamp, destination_uuid: decoy.attributes.uuid },
        { source: rel('plates', source.id), destination: rel('plates', destination.id), user: rel('users', userId) },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await contentsOf('plates', destination.id)).size).toBe(1);
    expect((await contentsOf('plates', decoy.id)).size).toBe(0);
  });

  it('uses the map a client sends for a template without one ("Custom pooling"); a template with a map ignores it', async () => {
    const { plate: source, samples } = await filledPlate(2);
    const destination = await createPlate();
    const res = await postTransfer({
      template: custom,
      source: source.attributes.uuid,
      destination: destination.attributes.uuid,
      user,
      transfers: { B1: 'H12' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes.transfers).toEqual({ B1: 'H12' });
    expect(await contentsOf('plates', destination.id)).toEqual(new Map([['H12', [{ sample: samples.get('B1'), tag: null, tag2: null }]]]));

    const other = await createPlate();
    const ignored = await postTransfer({ template: stamp, source: source.attributes.uuid, destination: other.attributes.uuid, user, transfers: { A1: 'H12' } });
    expect(ignored.status, JSON.stringify(ignored.body)).toBe(201);
    expect(ignored.body.data.attributes.transfers).toEqual({ A1: 'A1', B1: 'B1' });
  });

  it('lists transfers by type', async () => {
    const res = await call('GET', '/api/v2/transfers?filter[transfer_type]=Transfer::BetweenPlates&page[size]=100');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((t: any) => t.attributes.transfer_type === 'Transfer::BetweenPlates')).toBe(true);
    const none = await call('GET', '/api/v2/transfers?filter[transfer_type]=Transfer::BetweenSpecificTubes');
    expect(none.body.data).toEqual([]);
  });
});

describe('POST /transfers refused, writing nothing', () => {
  const body = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => doc('transfers', attributes, relationships);

  it('an unknown template is a 404; a missing one, user or source a 422 each', async () => {
    const { plate: source } = await filledPlate(1);
    const destination = (await createPlate()).attributes.uuid;
    const unknown = await refused(
      'POST',
      '/api/v2/transfers',
      body({
        transfer_template_uuid: '00000000-0000-4000-8000-000000000000',
        source_uuid: source.attributes.uuid,
        destination_uuid: destination,
        user_uuid: user,
      }),
    );
    expectError(unknown, 404, 'record_not_found', '/data/attributes/transfer_template_uuid');
    const missing = await refused('POST', '/api/v2/transfers', body({ source_uuid: source.attributes.uuid, destination_uuid: destination }));
    expectError(missing, 422, 'required', '/data/attributes/transfer_template_uuid');
    expectError(missing, 422, 'required', '/data/relationships/user');
    const noSource = await refused('POST', '/api/v2/transfers', body({ transfer_template_uuid: stamp, destination_uuid: destination, user_uuid: user }));
    expect(expectError(noSource, 422, 'required', '/data/relationships/source').detail).toBe("source - can't be blank");
  });

  it('a known-destination type without a destination, a map with wells the plates lack, or no map at all: 422s pointing at them', async () => {
    const { plate: source } = await filledPlate(1);
    const destination = (await createPlate()).attributes.uuid;
    expectError(
      await refused('POST', '/api/v2/transfers', body({ transfer_template_uuid: stamp, source_uuid: source.attributes.uuid, user_uuid: user })),
      422,
      undefined,
      '/data/relationships/destination',
    );
    const badWells = await refused(
      'POST',
      '/api/v2/transfers',
      body({
        transfer_template_uuid: custom,
        source_uuid: source.attributes.uuid,
        destination_uuid: destination,
        user_uuid: user,
        transfers: { Z1: 'A1', A1: 'Q99' },
      }),
    );
    const errors = badWells.body.errors.map((e: any) => e.detail).join(' | ');
    expect(errors).toContain('Z1');
    expect(errors).toContain('Q99');
    expectError(
      await refused(
        'POST',
        '/api/v2/transfers',
        body({ transfer_template_uuid: custom, source_uuid: source.attributes.uuid, destination_uuid: destination, user_uuid: user }),
      ),
      422,
      undefined,
      '/data/attributes/transfers',
    );
    expectError(
      await refused(
        'POST',
        '/api/v2/transfers',
        body({ transfer_template_uuid: custom, source_uuid: source.attributes.uuid, destination_uuid: destination, user_uuid: user, transfers: 'A1' }),
      ),
      422,
      undefined,
      '/data/attributes/transfers',
    );
  });

  it('a second transfer from one source into the same destination: 422, as the reference answers', async () => {
    const { plate: source } = await filledPlate(1);
    const destination = await createPlate();
    expect((await postTransfer({ template: stamp, source: source.attributes.uuid, destination: destination.attributes.uuid, user })).status).toBe(201);
    const again = await refused(
      'POST',
      '/api/v2/transfers',
      body({ transfer_template_uuid: stamp, source_uuid: source.attributes.uuid, destination_uuid: destination.attributes.uuid, user_uuid: user }),
    );
    expect(expectError(again, 422, 'invalid_value', '/data/relationships/destination').detail).toMatch(
      /^destination - can only be transferred to once from the source/,
    );
  });

  it('a copy that puts two samples with the same tags into one well: 422 naming both samples and the well; neither plate changes', async () => {
    const { plate: source, samples } = await filledPlate(2);
    const destination = await createPlate();
    const res = await refused(
      'POST',
      '/api/v2/transfers',
      body({
        transfer_template_uuid: custom,
        source_uuid: source.attributes.uuid,
        destination_uuid: destination.attributes.uuid,
        user_uuid: user,
        transfers: { A1: 'A1', B1: 'A1' },
      }),
    );
    const error = expectError(res, 422, 'invalid_value', '/data/relationships/source');
    expect(error.detail).toContain('tag clash');
    expect(error.detail).toContain(`sample ${samples.get('A1')}`);
    expect(error.detail).toContain(`sample ${samples.get('B1')}`);
  });

  it('labware of the wrong kind, and the types that need a targets list: 422 saying so', async () => {
    const { plate: source } = await filledPlate(1);
    const [tube, rack] = [await createTube(), await createRack()];
    for (const [from, to, wrong] of [
      [source, tube, 'destination'],
      [rack, source, 'source'],
    ] as const) {
      const res = await refused(
        'POST',
        '/api/v2/transfers',
        body({ transfer_template_uuid: stamp, source_uuid: from.attributes.uuid, destination_uuid: to.attributes.uuid, user_uuid: user }),
      );
      expectError(res, 422, undefined, `/data/relationships/${wrong}`);
    }
    await loadReferenceData(registry, {
      transfer_templates: [
        { name: 'Specific tubes', transfer_type: 'Transfer::FromPlateToSpecificTubes' },
        { name: 'Specific tubes by pool', transfer_type: 'Transfer::FromPlateToSpecificTubesByPool' },
        { name: 'Abstract', transfer_type: 'Transfer::BetweenPlateAndTubes' },
      ],
    });
    for (const name of ['Specific tubes', 'Specific tubes by pool']) {
      const res = await refused(
        'POST',
        '/api/v2/transfers',
        body({ transfer_template_uuid: await templateUuid(name), source_uuid: source.attributes.uuid, user_uuid: user }),
      );
      expect(expectError(res, 422).detail).toContain('targets');
    }
    expectError(
      await refused(
        'POST',
        '/api/v2/transfers',
        body({ transfer_template_uuid: await templateUuid('Abstract'), source_uuid: source.attributes.uuid, user_uuid: user }),
      ),
      422,
    );
  });

  it('PATCH and DELETE are 405', async () => {
    const { plate: source } = await filledPlate(1);
    const destination = await createPlate();
    const id = (await postTransfer({ template: stamp, source: source.attributes.uuid, destination: destination.attributes.uuid, user })).body.data.id;
    expectError(await refused('PATCH', `/api/v2/transfers/${id}`, doc('transfers', {}, undefined, id)), 405);
    expectError(await refused('DELETE', `/api/v2/transfers/${id}`, undefined), 405);
  });
});
