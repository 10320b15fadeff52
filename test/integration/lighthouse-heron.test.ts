import { beforeAll, describe, expect, it } from 'vitest';
import { call, idOf } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { freshStore, WRITE_KEY } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * sanger/lighthouse's calls to the Heron reception, replayed as lighthouse makes them
 * (/work/.mirror/sanger+lighthouse/repo, HEAD):
 * - lighthouse/helpers/plates.py `send_to_ss_heron_plates` (308-331): `requests.post(f"{SS_URL}/api/v2/heron/plates",
 *   json=body, headers=_ss_headers())` — Content-Type application/json, `X-Sequencescape-Client-Id` (92-93);
 *   on a 201 lighthouse reads only the status (lighthouse/routes/common/plates.py 140-152), otherwise it
 *   hands `response.json()` and the status on to its own caller.
 * - the body of a plate from a source plate: `create_post_body` (helpers/plates.py 271-305), each well
 *   keyed by the sample's `coordinate` with `phenotype`, `supplier_name`, `sample_description`, `uuid`;
 * - the body of a cherrypicked plate: `create_cherrypicked_post_body` (helpers/plates.py 482-534), samples
 *   with `name`, controls with `control` and `control_type`, and an `lh_beckman_cp_destination_created`
 *   event whose subjects are built by helpers/events.py (63-115) and `__ss_sample_subjects` (649-667);
 * - the samples looked up by lighthouse's uuid: `filter_for_new_samples` (helpers/plates.py 250-266) GETs
 *   `/api/v2/samples` with `params={"filter[uuid]": sample_uuid}` (the sample's `lh_sample_uuid`) and
 *   `_ss_headers()`, and reads a sample as new while `len(response.json()["data"]) == 0`;
 * - the plate read back: `get_from_ss_plates_samples_info` (helpers/plates.py 430-445) GETs
 *   `/api/v2/labware?filter[barcode]=…&include=purpose,receptacles.aliquots.sample`, and
 *   `convert_json_response_into_dict` with `ControlLocations` (336-427) reads the purposes' names, the
 *   samples, and each well's position and its aliquots' samples' control types.
 */

beforeAll(freshStore);

let config: { purpose: string; study: string };

/** lighthouse finds the purpose as type `purposes` (constants/jsonapi.py JS_PURPOSES), the type contract §7.4 gives a labware's purpose. */
const isPurpose = (r: { type: string }) => r.type === 'purposes';

beforeAll(async () => {
  const uuid = async (type: string, name: string) =>
    (await call('GET', `/api/v2/${type}/${await idOf(type, 'name', name)}`)).body.data.attributes.uuid as string;
  config = { purpose: await uuid('plate_purposes', 'Stock Plate'), study: await uuid('studies', 'Study A') };
});

/** As `requests.post(url, json=body, headers={"X-Sequencescape-Client-Id": …})` sends it. */
const sendToSsHeronPlates = (body: unknown) =>
  call('POST', '/api/v2/heron/plates', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: '*/*', 'x-sequencescape-client-id': WRITE_KEY },
  });

/** filter_for_new_samples's is_sample_new: `requests.get(f"{SS_URL}/api/v2/samples", params={"filter[uuid]": sample_uuid}, headers=_ss_headers())`. */
async function isSampleNew(sampleUuid: string) {
  const res = await call('GET', `/api/v2/samples?filter[uuid]=${sampleUuid}`, { headers: { accept: '*/*', 'x-sequencescape-client-id': WRITE_KEY } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { new: res.body.data.length === 0, data: res.body.data };
}

/** create_post_body(barcode, plate_config, samples) */
function createPostBody(
  barcode: string,
  samples: { coordinate: string; Result: string; 'Root Sample ID': string; cog_barcode: string; lh_sample_uuid: string }[],
) {
  const wells_content: Record<string, unknown> = {};
  for (const sample of samples) {
    wells_content[sample.coordinate] = {
      content: {
        phenotype: sample.Result.trim().toLowerCase(),
        supplier_name: sample.cog_barcode,
        sample_description: sample['Root Sample ID'],
        uuid: sample.lh_sample_uuid,
      },
    };
  }
  return { data: { type: 'plates', attributes: { barcode, purpose_uuid: config.purpose, study_uuid: config.study, wells: wells_content } } };
}

describe("lighthouse's Heron plates", () => {
  it('a plate from a source plate (create_post_body): 201, and a refusal lighthouse hands on as it came', async () => {
    const barcode = uniqueName('DS');
    const samples = ['A01', 'B01', 'H12'].map((coordinate, i) => ({
      coordinate,
      Result: i === 0 ? 'Positive ' : 'Negative',
      'Root Sample ID': `R00T-${i}`,
      cog_barcode: `COG-${i}`,
      lh_sample_uuid: crypto.randomUUID(),
    }));
    const res = await sendToSsHeronPlates(createPostBody(barcode, samples));
    expect(res.status, JSON.stringify(res.body)).toBe(201);

    const read = await call('GET', `/api/v2/labware?filter[barcode]=${barcode}&include=purpose,receptacles.aliquots.sample.sample_metadata`);
    const included = read.body.included as any[];
    expect(included.filter(isPurpose).map((p) => p.attributes.name)).toEqual(['Stock Plate']);
    // filter_for_new_samples: each sample sent is found by its lh_sample_uuid, which is its uuid; one never sent is new.
    for (const sample of samples) {
      const found = await isSampleNew(sample.lh_sample_uuid);
      expect(found.new).toBe(false);
      expect(found.data.map((s: any) => s.attributes.uuid)).toEqual([sample.lh_sample_uuid]);
    }
    expect((await isSampleNew(crypto.randomUUID())).new).toBe(true);
    const metadata = included
      .filter((r) => r.type === 'sample_metadata')
      .map((m) => [m.attributes.supplier_name, m.attributes.phenotype, m.attributes.sample_description]);
    expect(metadata.sort()).toEqual([
      ['COG-0', 'positive', 'R00T-0'],
      ['COG-1', 'negative', 'R00T-1'],
      ['COG-2', 'negative', 'R00T-2'],
    ]);

    // The same plate again: lighthouse proxies `response.json()` and the status; the body names the barcode.
    const again = await sendToSsHeronPlates(createPostBody(barcode, samples));
    expect(again.status).toBe(422);
    expect(again.body.errors[0].source.pointer).toBe('/data/attributes/barcode');
    expect(again.body.errors[0].detail).toContain(barcode);
  });

  it('a cherrypicked plate (create_cherrypicked_post_body) with its event, read back as ControlLocations reads it', async () => {
    const barcode = uniqueName('CP');
    const sample = (coordinate: string, i: number) => ({
      coordinate,
      name: `RNA-${i}`,
      phenotype: 'positive',
      supplier_name: `COG-${i}`,
      sample_description: `ROOT-${i}`,
      lab_id: 'MK',
      uuid: crypto.randomUUID(),
    });
    const control = (coordinate: string, type: string) => ({
      coordinate,
      supplier_name: `${type} control: DS1_${coordinate}`,
      control: true,
      control_type: type,
      uuid: crypto.randomUUID(),
    });
    const samples: Record<string, any>[] = [sample('A01', 1), sample('B01', 2), control('G12', 'pcr positive'), control('H12', 'pcr negative')];

    const wells_content: Record<string, unknown> = {};
    for (const s of samples) {
      const content: Record<string, unknown> = {};
      if ('control' in s) {
        content.supplier_name = s.supplier_name;
        content.control = s.control;
        content.control_type = s.control_type.toLowerCase();
        content.uuid = s.uuid;
      } else {
        content.name = s.name;
        content.phenotype = s.phenotype;
        content.supplier_name = s.supplier_name;
        content.sample_description = s.sample_description;
        content.uuid = s.uuid;
      }
      wells_content[s.coordinate] = { content };
    }
    const subjects = [
      { role_type: 'robot', subject_type: 'robot', friendly_name: 'BKRB0001', uuid: crypto.randomUUID() },
      { role_type: 'cherrypicking_source_labware', subject_type: 'plate', friendly_name: 'DS000000001', uuid: crypto.randomUUID() },
      ...samples.map((s) =>
        'control' in s
          ? { role_type: 'control', subject_type: 'sample', friendly_name: s.supplier_name, uuid: s.uuid }
          : { role_type: 'sample', subject_type: 'sample', friendly_name: [s.sample_description, s.name, s.lab_id, s.phenotype].join('__'), uuid: s.uuid },
      ),
    ];
    const events = [{ event: { user_identifier: 'user1', event_type: 'lh_beckman_cp_destination_created', subjects, metadata: {}, lims: 'LH_TEST' } }];
    const body = { data: { type: 'plates', attributes: { barcode, purpose_uuid: config.purpose, study_uuid: config.study, wells: wells_content, events } } };

    const res = await sendToSsHeronPlates(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes.study_names).toEqual(['Study A']);
    const picked = (await outboxEvents()).filter((e) => e.type === 'plates.cherrypicked' && e.resource.uuid === res.body.data.attributes.uuid);
    expect(picked.map((e) => (e.data as any).meta.event)).toEqual([events[0]!.event]);

    // get_from_ss_plates_samples_info, then ControlLocations.get_control_locations.
    const read = await call('GET', `/api/v2/labware?filter[barcode]=${barcode}&include=purpose,receptacles.aliquots.sample`);
    expect(read.status).toBe(200);
    const included = read.body.included as any[];
    expect(included.filter(isPurpose)[0].attributes.name).toBe('Stock Plate');
    expect(included.filter((r) => r.type === 'samples')).toHaveLength(4);
    const controlType = (well: any) => {
      const aliquotIds = well.relationships.aliquots.data.map((a: any) => a.id);
      const sampleIds = included.filter((r) => r.type === 'aliquots' && aliquotIds.includes(r.id)).map((a) => a.relationships.sample.data.id);
      const types = sampleIds
        .map((id: string) => included.find((r) => r.type === 'samples' && r.id === id))
        .flatMap((s: any) => (s.attributes.control === true ? [s.attributes.control_type] : []));
      return types.length === 1 ? types[0] : null;
    };
    const locations = Object.fromEntries(
      included
        .filter((r) => r.type === 'wells')
        .map((w) => [w.attributes.position.name, controlType(w)])
        .filter(([, t]) => t !== null),
    );
    expect(locations).toEqual({ G12: 'pcr positive', H12: 'pcr negative' });
  });
});
