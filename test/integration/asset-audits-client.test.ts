import { beforeAll, describe, expect, it } from 'vitest';
import { call, type CallResult } from '../support/api.ts';
import { createPlate, createTube } from '../support/fixtures.ts';
import { adminUuid, filledPlate, postTransfer, templateUuid } from '../support/lab.ts';
import { pathOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * The asset_audits application (sanger/asset_audits, "process tracker") replayed as its API v2 client
 * sends its calls: json_api_client 1.23 (Gemfile.lock) with no paginator of its own, so `.first` sends
 * `page[page]=1&page[per_page]=1`; `.where(k: v)` sends `filter[k]=v` (arrays joined by commas);
 * `Model.create!(attrs)` POSTs `{"data":{"type":…,"attributes":{…}}}` with every attribute given, nil as
 * null; a has_many/has_one it reads follows the relationship's `links.related`. Each call cites the
 * client's file; queries are written unencoded.
 */

beforeAll(freshStore);

const ok = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body;
};
const created = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
  return res.body.data;
};

/** app/models/user.rb, User.login_from_user_code: `Sequencescape::Api::V2::User.where(user_code:).first&.login`. */
async function loginFromUserCode(userCode: string): Promise<string | undefined> {
  const body = ok(await call('GET', `/api/v2/users?filter[user_code]=${userCode}&page[page]=1&page[per_page]=1`));
  return body.data[0]?.attributes.login;
}

describe('asset_audits records a process on plates (ProcessPlate)', () => {
  it('looks up the users by swipe code, the plates by barcode, then posts an audit per plate and a volume update per source', async () => {
    const [source, destination] = [await createPlate(), await createPlate()];
    const barcodes = [source, destination].map((p) => p.attributes.labware_barcode.machine_barcode);

    // app/models/process_plate.rb, user_login / witness_login: the swipe codes as the user scanned them.
    const userLogin = await loginFromUserCode('SWIPE-0001');
    const witnessLogin = await loginFromUserCode('SWIPE-0002');
    expect([userLogin, witnessLogin]).toEqual(['admin', 'tech1']);
    expect(await loginFromUserCode('SWIPE-9999')).toBeUndefined();

    // app/models/process_plate.rb, asset_uuids_from_plate_barcodes: `Plate.where(barcode: barcodes).map(&:uuid)`.
    const plates = ok(await call('GET', `/api/v2/plates?filter[barcode]=${barcodes.join(',')}`));
    const assetUuids: string[] = plates.data.map((p: any) => p.attributes.uuid);
    expect(assetUuids.sort()).toEqual([source.attributes.uuid, destination.attributes.uuid].sort());

    // app/models/process_plate.rb, create_remote_audit: `AssetAudit.create!(options)`, the options in this order;
    // metadata is nil but for bed verifications (app/models/verification/bed_verification.rb, metadata: {"scanned" => beds}).
    const metadata = { scanned: { bed1: { plate: barcodes[0] }, bed2: { plate: barcodes[1] } } };
    for (const assetUuid of assetUuids) {
      const body = {
        data: {
          type: 'asset_audits',
          attributes: {
            key: 'slf_working_dilution',
            message: "Process 'Working dilution' performed on instrument Bravo",
            created_by: userLogin,
            asset_uuid: assetUuid,
            witnessed_by: witnessLogin,
            metadata,
          },
        },
      };
      const audit = created(await call('POST', '/api/v2/asset_audits', { body }));
      // json_api_client reads the record back from the answer (create! raises unless it was persisted).
      expect(audit).toMatchObject({ type: 'asset_audits', attributes: { ...body.data.attributes } });
    }

    // app/models/post_audit_actions/subtraction_volume_for_working_dilution.rb: for each source (even positions of the
    // scanned barcodes), `VolumeUpdate.create!(target_uuid:, volume_change: -1 * volume_to_pick, created_by: user_login)`.
    const sources = assetUuids.filter((uuid) => uuid === source.attributes.uuid);
    for (const targetUuid of sources) {
      const body = { data: { type: 'volume_updates', attributes: { target_uuid: targetUuid, volume_change: -5.0, created_by: userLogin } } };
      expect(created(await call('POST', '/api/v2/volume_updates', { body })).attributes).toMatchObject(body.data.attributes);
    }

    // What was recorded against each plate: its audits, and the source's wells 5 µl down from none recorded (never below 0).
    for (const plate of [source, destination]) {
      const audits = ok(await call('GET', `/api/v2/asset_audits?filter[asset_uuid]=${plate.attributes.uuid}`));
      expect(audits.data.map((a: any) => a.attributes.key)).toEqual(['slf_working_dilution']);
    }
    const wells = ok(await call('GET', `/api/v2/plates/${source.id}/wells?page[size]=100`));
    expect(new Set(wells.data.map((w: any) => w.attributes.current_volume))).toEqual(new Set([0]));
  });
});

describe('asset_audits checks a bed layout (verification validators)', () => {
  it("finds a destination plate's parents through the related link", async () => {
    const [{ plate: parent }, child] = [await filledPlate(1), await createPlate()];
    const res = await postTransfer({
      template: await templateUuid('Transfer columns 1-12'),
      source: parent.attributes.uuid,
      destination: child.attributes.uuid,
      user: await adminUuid(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const barcode = child.attributes.labware_barcode.machine_barcode;

    // app/models/verification/validator/source_and_destination_plates_linked.rb:
    // `Plate.where(barcode: destination_barcode).first&.parents`, then each parent's labware_barcode["machine_barcode"].
    const found = ok(await call('GET', `/api/v2/plates?filter[barcode]=${barcode}&page[page]=1&page[per_page]=1`));
    expect(found.data.map((p: any) => p.id)).toEqual([child.id]);
    const parents = ok(await call('GET', pathOf(found.data[0].relationships.parents.links.related)));
    expect(parents.data.map((p: any) => p.attributes.labware_barcode.machine_barcode)).toEqual([parent.attributes.labware_barcode.machine_barcode]);
  });

  it('finds labware of any kind by barcode, with its purpose through the related link (ProcessLabware, OutdatedLabware)', async () => {
    const [plate, tube] = [await createPlate(), await createTube()];
    const barcodes = [plate, tube].map((l) => l.attributes.labware_barcode.machine_barcode);
    // app/models/process_labware.rb: `Labware.where(barcode: barcodes).map(&:uuid)` (Labware.table_name is "labware").
    // app/models/verification/outdated_labware/base.rb indexes the same by labware_barcode["machine_barcode"].
    const labware = ok(await call('GET', `/api/v2/labware?filter[barcode]=${barcodes.join(',')}`));
    const byBarcode = new Map(labware.data.map((l: any) => [l.attributes.labware_barcode.machine_barcode, l]));
    expect([...byBarcode.keys()].sort()).toEqual([...barcodes].sort());
    expect([...byBarcode.values()].map((l: any) => l.attributes.uuid).sort()).toEqual([plate.attributes.uuid, tube.attributes.uuid].sort());
    // app/models/verification/validator/labware_validation.rb reads `labw.purpose.name` (has_one :purpose, app/resources/sequencescape/api/v2/labware.rb).
    const purpose = ok(await call('GET', pathOf((byBarcode.get(barcodes[1]!) as any).relationships.purpose.links.related)));
    expect(purpose.data.attributes.name).toBe('Stock Tube');
    // An audit of each, as ProcessLabware posts them (the same create_remote_audit).
    for (const l of [plate, tube]) {
      const body = {
        data: {
          type: 'asset_audits',
          attributes: {
            key: 'destroying_labware',
            message: 'Process performed',
            created_by: 'admin',
            asset_uuid: l.attributes.uuid,
            witnessed_by: null,
            metadata: null,
          },
        },
      };
      expect(created(await call('POST', '/api/v2/asset_audits', { body })).relationships.asset.data).toEqual({ type: l.type, id: l.id });
    }
  });
});
