import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventsSchema } from '#lib/events/schema.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc, idOf } from '../support/api.ts';
import { addAliquot, createPlate, createSample, createTube, inBatches, rel, uniqueName } from '../support/fixtures.ts';
import { adminUuid, filledPlate, poolPlate, uuidOf } from '../support/lab.ts';
import { expectError, header } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused, requestItems, tableSnapshot, type Envelope } from '../support/table.ts';

/**
 * Randomised controls (contract §7.4) as Limber's StampedPlateAddingRandomisedControls labware creator
 * makes them (sanger/limber app/models/labware_creators/stamped_plate_adding_randomised_controls.rb, read at
 * 52d3703f): a child plate of the parent, control samples named by `sanger_sample_id`, their metadata, an
 * aliquot of each with a study and a project in its well, the displaced parent requests cancelled, the rest
 * stamped by a transfer request collection, and `POST plates/{id}/register_stock_for_plate` — which
 * registers each well holding aliquots as a stock resource: an event per well with its samples, in one write.
 * Bad input is a 4xx at the pointer with nothing written; 50 registrations of one plate at once register it once.
 */

beforeAll(freshStore);

/** stamped_plate_adding_randomised_controls.rb lines 13-15, PARENT_PLATE_INCLUDES. */
const PARENT_PLATE_INCLUDES =
  'wells.requests_as_source,wells.requests_as_source.request_type,wells.aliquots,wells.aliquots.sample,wells.aliquots.sample.sample_metadata';

/** What the purpose's configuration gives the creator (config/purposes/bioscan.yml's keys; the values are this test's). */
const CONFIG = {
  controls: [
    { name_prefix: 'CONTROL_POS_', control_type: 'pcr positive', fixed_location: 'B1' },
    { name_prefix: 'CONTROL_NEG_', control_type: 'pcr negative', fixed_location: 'D1' },
  ],
  control_study_name: 'Study B',
  control_project_name: 'Project A',
  // The creator cancels the displaced wells' pending requests of this type (lines 307-315).
  work_completion_request_type: 'library_creation',
};

const registerPath = (plateId: string) => `/api/v2/plates/${plateId}/register_stock_for_plate`;

/** `Sequencescape::Api::V2::Plate...find(uuid:).first` with an include string (app/integrations/sequencescape/api/v2.rb lines 63-65, 88-90). */
async function plateByUuid(uuid: string, include: string): Promise<{ plate: any; included: Map<string, any> }> {
  const res = await call('GET', `/api/v2/plates?filter[uuid]=${uuid}&include=${include}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { plate: res.body.data[0], included: new Map((res.body.included ?? []).map((r: any) => [`${r.type}:${r.id}`, r])) };
}

const wellsOf = ({ plate, included }: { plate: any; included: Map<string, any> }) =>
  plate.relationships.wells.data.map((link: any) => included.get(`wells:${link.id}`));

/** The stock events of the writes since `before` (request item keys), by type. */
async function stockEventsSince(before: Set<string>): Promise<{ items: number; wells: Envelope[]; plates: Envelope[] }> {
  const items = (await requestItems()).filter((item) => !before.has(item.key));
  const events = items.flatMap((item) => item.events);
  return {
    items: items.filter((item) => item.events.some((e) => e.type.endsWith('.stock_registered'))).length,
    wells: events.filter((e) => e.type === 'wells.stock_registered'),
    plates: events.filter((e) => e.type === 'plates.stock_registered'),
  };
}

const requestKeys = async () => new Set((await requestItems()).map((item) => item.key));

describe("Limber's StampedPlateAddingRandomisedControls, call by call", () => {
  let user: string;
  let parent: any;
  let child: any;
  let childWells: Map<string, any>;
  const samplesAt = new Map<string, string>();
  const controls = new Map<string, any>();
  let parentRequests: Map<string, any>;
  let projectId: string;
  let studyB: string;

  beforeAll(async () => {
    user = await adminUuid();
    const studyA = await idOf('studies', 'name', 'Study A');
    const filled = await filledPlate(6, 'Stock Plate', studyA);
    for (const [position, sample] of filled.samples) samplesAt.set(position, sample);
    // A pending library_creation request out of each well, one submission, as the parent's workflow left them.
    await poolPlate(filled.plate.id, [[...samplesAt.keys()]]);
    const metadata = (await call('GET', `/api/v2/samples/${samplesAt.get('A1')}/sample_metadata`)).body.data;
    await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, {
      body: doc('sample_metadata', { cohort: 'COHORT-1', sample_description: 'SPECIMEN-PLATE-1' }, undefined, metadata.id),
    });
    parent = filled.plate;

    // Lines 17-19: the parent, with its requests, aliquots, samples and their metadata.
    const read = await plateByUuid(parent.attributes.uuid, PARENT_PLATE_INCLUDES);
    const parentWells = wellsOf(read);
    parentRequests = new Map(
      parentWells
        .filter((w: any) => w.relationships.requests_as_source.data.length > 0)
        .map((w: any) => {
          // Lines 308-315, suitable_request_for_well: a pending request of the configured type, the latest.
          const requests = w.relationships.requests_as_source.data
            .map((r: any) => read.included.get(`requests:${r.id}`))
            .filter(
              (r: any) =>
                read.included.get(`request_types:${r.relationships.request_type.data.id}`).attributes.key === CONFIG.work_completion_request_type &&
                r.attributes.state === 'pending',
            );
          return [w.attributes.position.name, requests.sort((a: any, b: any) => Number(b.id) - Number(a.id))[0]];
        }),
    );
    // Lines 190-209: the controls' description and cohort, from the first filled well's sample's metadata.
    const firstSample = read.included.get(`samples:${samplesAt.get('A1')}`);
    const firstMetadata = read.included.get(`sample_metadata:${firstSample.relationships.sample_metadata.data.id}`);
    const [description, cohort] = [firstMetadata.attributes.sample_description, firstMetadata.attributes.cohort];
    expect([description, cohort]).toEqual(['SPECIMEN-PLATE-1', 'COHORT-1']);

    // Base#create_plate_from_parent! (app/models/labware_creators/base.rb lines 120-123), then `plate_creation.child`.
    const creation = await call('POST', '/api/v2/plate_creations', {
      body: doc('plate_creations', {
        child_purpose_uuid: await uuidOf('plate_purposes', 'name', 'Working Dilution'),
        parent_uuid: parent.attributes.uuid,
        user_uuid: user,
      }),
    });
    expect(creation.status, JSON.stringify(creation.body)).toBe(201);
    child = (await call('GET', `/api/v2/plate_creations/${creation.body.data.id}/child`)).body.data;
    // Line 117: plate_with_wells.
    childWells = new Map(wellsOf(await plateByUuid(child.attributes.uuid, 'wells')).map((w: any) => [w.attributes.position.name, w]));

    // Lines 211-219: the control study and project, by name.
    const study = (await call('GET', `/api/v2/studies?filter[name]=${encodeURIComponent(CONFIG.control_study_name)}`)).body.data[0];
    const project = (await call('GET', `/api/v2/projects?filter[name]=${encodeURIComponent(CONFIG.control_project_name)}`)).body.data[0];
    [studyB, projectId] = [study.id, project.id];

    // Lines 150-158 and 238-305, for each control in its location.
    for (const control of CONFIG.controls) {
      const location = control.fixed_location;
      // Lines 253-275: named after the child's barcode and the well; `sanger_sample_id` the same.
      const name = `${control.name_prefix}${child.attributes.labware_barcode.human_barcode}_${location}`;
      const sample = await call('POST', '/api/v2/samples', {
        body: doc(
          'samples',
          { name, sanger_sample_id: name, control: true, control_type: control.control_type },
          { studies: { data: [{ type: 'studies', id: study.id }] } },
        ),
      });
      expect(sample.status, JSON.stringify(sample.body)).toBe(201);
      // Lines 277-287: its metadata, through the relationship (json_api_client follows links.related), then updated.
      const metadataOfControl = (await call('GET', `/api/v2/samples/${sample.body.data.id}/sample_metadata`)).body.data;
      const updated = await call('PATCH', `/api/v2/sample_metadata/${metadataOfControl.id}`, {
        body: doc('sample_metadata', { supplier_name: name, cohort, sample_description: description }, undefined, metadataOfControl.id),
      });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      // Lines 290-305: the aliquot, its receptacle linkage typed `receptacles`, with the control study and project.
      const aliquot = await call('POST', '/api/v2/aliquots', {
        body: doc(
          'aliquots',
          {},
          {
            sample: rel('samples', sample.body.data.id),
            study: rel('studies', study.id),
            project: rel('projects', project.id),
            receptacle: rel('receptacles', childWells.get(location).id),
          },
        ),
      });
      expect(aliquot.status, JSON.stringify(aliquot.body)).toBe(201);
      controls.set(location, { sample: sample.body.data, aliquot: aliquot.body.data });
    }

    // Lines 160-168 and 317-329: the displaced parent wells' requests cancelled.
    for (const control of CONFIG.controls) {
      const request = parentRequests.get(control.fixed_location);
      const cancelled = await call('PATCH', `/api/v2/requests/${request.id}`, { body: doc('requests', { state: 'cancelled' }, undefined, request.id) });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    }

    // Lines 223-234: the other filled wells stamped, each naming its request (WellFilter#filter_requests).
    const locations = CONFIG.controls.map((c) => c.fixed_location);
    const stamped = parentWells.filter((w: any) => w.relationships.aliquots.data.length > 0 && !locations.includes(w.attributes.position.name));
    const collection = await call('POST', '/api/v2/transfer_request_collections', {
      body: doc('transfer_request_collections', {
        transfer_requests_attributes: stamped.map((w: any) => ({
          source_asset: w.attributes.uuid,
          target_asset: childWells.get(w.attributes.position.name).attributes.uuid,
          outer_request: parentRequests.get(w.attributes.position.name).attributes.uuid,
        })),
        user_uuid: user,
      }),
    });
    expect(collection.status, JSON.stringify(collection.body)).toBe(201);
  });

  it('makes each control: a sample named by sanger_sample_id, with its metadata, in its well with the control study and project', async () => {
    const read = await call('GET', `/api/v2/plates/${child.id}?include=wells.aliquots.sample.sample_metadata,wells.aliquots.project,wells.aliquots.study`);
    const included = new Map<string, any>(read.body.included.map((r: any) => [`${r.type}:${r.id}`, r]));
    for (const control of CONFIG.controls) {
      const { sample } = controls.get(control.fixed_location);
      expect(sample.attributes).toMatchObject({ sanger_sample_id: sample.attributes.name, site_sample_id: sample.attributes.name, control: true });
      const well = included.get(`wells:${childWells.get(control.fixed_location).id}`);
      const [aliquot] = well.relationships.aliquots.data.map((a: any) => included.get(`aliquots:${a.id}`));
      expect(aliquot.relationships.sample.data).toEqual({ type: 'samples', id: sample.id });
      expect(aliquot.relationships.study.data).toEqual({ type: 'studies', id: studyB });
      expect(aliquot.relationships.project.data).toEqual({ type: 'projects', id: projectId });
      expect(included.get(`projects:${projectId}`).attributes.name).toBe(CONFIG.control_project_name);
      const metadata = included.get(`sample_metadata:${included.get(`samples:${sample.id}`).relationships.sample_metadata.data.id}`);
      expect(metadata.attributes).toMatchObject({ supplier_name: sample.attributes.name, cohort: 'COHORT-1', sample_description: 'SPECIMEN-PLATE-1' });
    }
    const found = await call('GET', `/api/v2/samples?filter[sanger_sample_id]=${controls.get('B1').sample.attributes.name}`);
    expect(found.body.data.map((s: any) => s.id)).toEqual([controls.get('B1').sample.id]);
  });

  it('cancels the displaced wells’ requests and stamps the others, whose copies carry their request', async () => {
    for (const [position, request] of parentRequests) {
      const state = (await call('GET', `/api/v2/requests/${request.id}`)).body.data.attributes.state;
      expect(state, position).toBe(['B1', 'D1'].includes(position) ? 'cancelled' : 'pending');
    }
    const read = await call('GET', `/api/v2/plates/${child.id}?include=wells.aliquots.sample`);
    const included = new Map<string, any>(read.body.included.map((r: any) => [`${r.type}:${r.id}`, r]));
    for (const position of ['A1', 'C1', 'E1', 'F1']) {
      const well = included.get(`wells:${childWells.get(position).id}`);
      const [aliquot] = well.relationships.aliquots.data.map((a: any) => included.get(`aliquots:${a.id}`));
      expect(aliquot.relationships.sample.data.id, position).toBe(samplesAt.get(position));
      expect((await call('GET', `/api/v2/aliquots/${aliquot.id}/request`)).body.data.id, position).toBe(parentRequests.get(position).id);
    }
  });

  it('register_stock_for_plate as Limber sends it (POST {}): 200 with the plate; an event per filled well with its samples, in one write', async () => {
    const before = await requestKeys();
    // plate.rb line 189: `custom_endpoint :register_stock_for_plate, on: :member, request_method: :post`.
    const res = await call('POST', registerPath(child.id), { body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'plates', id: child.id });
    const { items, wells, plates } = await stockEventsSince(before);
    expect(items).toBe(1);
    expect(plates.map((e) => e.resource.id)).toEqual([child.id]);
    const expected = new Map<string, string>([
      ...['A1', 'C1', 'E1', 'F1'].map((p) => [p, samplesAt.get(p)!] as [string, string]),
      ...CONFIG.controls.map((c) => [c.fixed_location, controls.get(c.fixed_location).sample.id] as [string, string]),
    ]);
    expect(wells.map((e) => e.data.attributes.position.name).sort()).toEqual([...expected.keys()].sort());
    const studyUuid = async (name: string) => uuidOf('studies', 'name', name);
    for (const event of wells) {
      const position = event.data.attributes.position.name;
      const well = childWells.get(position);
      const sample = (await call('GET', `/api/v2/samples/${expected.get(position)}`)).body.data;
      expect(event.resource).toEqual({ type: 'wells', id: well.id, uuid: well.attributes.uuid, version: plates[0]!.resource.version });
      expect(event.data.meta.stock_resource).toEqual({
        stock_resource_uuid: well.attributes.uuid,
        stock_resource_id: Number(well.id),
        labware_type: 'well',
        machine_barcode: child.attributes.labware_barcode.machine_barcode,
        human_barcode: child.attributes.labware_barcode.human_barcode,
        labware_coordinate: position,
        samples: [{ sample_uuid: sample.attributes.uuid, study_uuid: await studyUuid(['B1', 'D1'].includes(position) ? 'Study B' : 'Study A') }],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    }
    // The events are the ones the events' JSON Schema describes (docs/events.schema.json).
    const validate = new Ajv2020({ strict: false, allErrors: true, formats: fullFormats }).compile(eventsSchema(registry));
    for (const event of [...wells, ...plates]) expect(validate(event) ? [] : validate.errors, event.type).toEqual([]);
    expect(validate({ ...wells[0], data: { ...wells[0]!.data, meta: {} } })).toBe(false);
  });

  it('a registration that would repeat the last registers nothing and writes nothing; new contents register every filled well again', async () => {
    const snapshot = await tableSnapshot();
    const again = await call('POST', registerPath(child.id), { body: {} });
    expect(again.status).toBe(200);
    expect(await tableSnapshot()).toEqual(snapshot);
    // Under an Idempotency-Key the answer is kept, but no event: nothing was registered.
    const before = await requestKeys();
    expect((await call('POST', registerPath(child.id), { body: {}, headers: { 'idempotency-key': uniqueName('again') } })).status).toBe(200);
    expect((await stockEventsSince(before)).wells).toEqual([]);
    expect((await requestItems()).filter((item) => !before.has(item.key)).flatMap((item) => item.events)).toEqual([]);

    await addAliquot({ type: 'wells', id: childWells.get('H1').id }, (await createSample()).id);
    const changed = await call('POST', registerPath(child.id), { body: {} });
    expect(changed.status).toBe(200);
    expect((await stockEventsSince(before)).wells.map((e) => e.data.attributes.position.name).sort()).toEqual(['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'H1']);
  });
});

describe('register_stock_for_plate: bad input, nothing written', () => {
  let plate: any;
  beforeAll(async () => {
    plate = (await filledPlate(2)).plate;
  });

  it('an unknown plate is a 404; a malformed id a 400; a tube’s id (not a plate) a 404', async () => {
    expectError(await refused('POST', registerPath('999999'), {}), 404, 'record_not_found');
    expectError(await refused('POST', registerPath('DN1S'), {}), 400, 'invalid_id');
    const tube = await createTube();
    expectError(await refused('POST', registerPath(tube.id), {}), 404, 'record_not_found');
  });

  it('a body that is not an object is a 400; data naming another type or plate a 409; data with attributes a 400', async () => {
    expectError(await refused('POST', registerPath(plate.id), []), 400, 'invalid_member');
    expectError(await refused('POST', registerPath(plate.id), { data: { type: 'tubes', id: plate.id } }), 409, 'conflict', '/data/type');
    expectError(await refused('POST', registerPath(plate.id), { data: { type: 'plates', id: String(Number(plate.id) + 1) } }), 409, 'conflict', '/data/id');
    expectError(
      await refused('POST', registerPath(plate.id), { data: { type: 'plates', id: plate.id, attributes: { name: 'x' } } }),
      400,
      'param_not_allowed',
      '/data/attributes/name',
    );
    // Named in `data`, the plate itself is accepted (the OpenAPI examples send it so).
    expect((await call('POST', registerPath(plate.id), { body: { data: { type: 'plates', id: plate.id } } })).status).toBe(200);
  });

  it('another method on it is a 405 naming POST; the name is no action on the collection (read as an id there: 400)', async () => {
    const get = await call('GET', registerPath(plate.id));
    expectError(get, 405, 'method_not_allowed');
    expect(header(get, 'allow')).toBe('POST');
    expectError(await refused('POST', '/api/v2/plates/register_stock_for_plate', {}), 400, 'invalid_id');
    expectError(await call('GET', '/api/v2/plates/register_stock_for_plate'), 400, 'invalid_id');
  });

  it("an aliquot's project that is not there is a 404 at it, one of another type a 400; nothing written", async () => {
    const sample = await createSample();
    const well = { type: 'wells', id: String(Number(plate.id) * 1000 + 5) };
    const body = (project: unknown) => doc('aliquots', {}, { receptacle: { data: well }, sample: rel('samples', sample.id), project });
    expectError(await refused('POST', '/api/v2/aliquots', body(rel('projects', '999999'))), 404, 'record_not_found', '/data/relationships/project/data');
    expectError(await refused('POST', '/api/v2/aliquots', body(rel('studies', '1'))), 400, 'type_mismatch', '/data/relationships/project/data/type');
  });
});

describe('50 at once', () => {
  it('50 registrations of one plate: all 200, exactly one registers (one write of its events), the others find it registered', async () => {
    const { plate } = await filledPlate(8);
    const before = await requestKeys();
    // A plate's version is the number of its events so far: one per version (docs/events.md).
    const versionBefore = (await outboxEvents()).filter((e) => e.resource.type === 'plates' && e.resource.id === plate.id).length;
    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', registerPath(plate.id), { body: {} })));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const { items, wells, plates } = await stockEventsSince(before);
    expect(items).toBe(1);
    expect(plates).toHaveLength(1);
    expect(wells).toHaveLength(8);
    // The plate moved by exactly one version: the registration's.
    expect(plates[0]!.resource.version).toBe(versionBefore + 1);
  });

  it('50 controls at once, each a sample by sanger_sample_id and an aliquot with a project, in 50 wells of one plate: all made', async () => {
    const plate = await createPlate();
    const [study, project] = [await idOf('studies', 'name', 'Study B'), await idOf('projects', 'name', 'Project A')];
    const samples = await inBatches(50, 10, (i) => createSample({ sanger_sample_id: uniqueName(`CTRL${i}`), control: true, control_type: 'positive' }));
    const made = await Promise.all(
      samples.map((sample, i) =>
        call('POST', '/api/v2/aliquots', {
          body: doc(
            'aliquots',
            {},
            {
              receptacle: rel('receptacles', String(Number(plate.id) * 1000 + i + 1)),
              sample: rel('samples', sample.id),
              study: rel('studies', study),
              project: rel('projects', project),
            },
          ),
        }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(Array(50).fill(201));
    const read = await call('GET', `/api/v2/plates/${plate.id}?include=wells.aliquots`);
    const aliquots = read.body.included.filter((r: any) => r.type === 'aliquots');
    expect(aliquots).toHaveLength(50);
    const projects = await Promise.all(made.map(async (r) => (await call('GET', `/api/v2/aliquots/${r.body.data.id}/project`)).body.data.id));
    expect(projects).toEqual(Array(50).fill(project));
    const bySangerId = await Promise.all(
      samples.map(async (s) => (await call('GET', `/api/v2/samples?filter[sanger_sample_id]=${s.attributes.sanger_sample_id}`)).body.data[0].id),
    );
    expect(bySangerId).toEqual(samples.map((s) => s.id));
  });
});
