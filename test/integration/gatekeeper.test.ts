import { beforeAll, describe, expect, it } from 'vitest';
import { call, type CallResult } from '../support/api.ts';
import { adminUuid, uuidOf } from '../support/lab.ts';
import { pathOf } from '../support/responses.ts';
import { freshStore, WRITE_KEY } from '../support/store.ts';

/**
 * sanger/gatekeeper's API v2 calls, replayed as its json_api_client classes send them
 * (app/resources/sequencescape/api/v2/*.rb: `Base` sends the key as X-Sequencescape-Client-Id; json_api_client
 * pages `.first` with `page[page]=1&page[per_page]=1`, which this service ignores as unknown page keys, and
 * reads a relationship it was not given by its `links.related`), asserting what gatekeeper reads back. Paths
 * and query strings are as the client sends them, unencoded. Its API v1 calls (log-in, robots, stamps, QC
 * decisions) are not served (contract §7.5).
 */

beforeAll(freshStore);

const HEADERS = { 'X-Sequencescape-Client-Id': WRITE_KEY };
const gatekeeper = async (method: string, path: string, body?: unknown): Promise<CallResult> => {
  const res = await call(method, path, { headers: HEADERS, ...(body === undefined ? {} : { body }) });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res;
};
const FIRST = 'page[page]=1&page[per_page]=1';
/** json_api_client's `included_data_for`: the included records a relationship's linkage names. */
const includedOf = (res: CallResult, relationship: any): any[] =>
  [].concat(relationship.data).map((ref: any) => res.body.included.find((r: any) => r.type === ref.type && r.id === ref.id));

let lotTypeUuid: string;
let templateUuid: string;
let userUuid: string;
let lotUuid: string;

describe('lib/tasks/config.rake: the lot types gatekeeper caches', () => {
  it('GET lot_types: each name with uuid, template_class, printer_type and qcable_name', async () => {
    // `Sequencescape::Api::V2::LotType.all.each { |lot_type| lot_types[lot_type.name] = { uuid:, template_class:, printer_type:, qcable_name: } }`
    const res = await gatekeeper('GET', '/api/v2/lot_types');
    const byName = Object.fromEntries(res.body.data.map((t: any) => [t.attributes.name, t.attributes]));
    expect(byName['Tag Plates']).toMatchObject({ template_class: 'TagLayoutTemplate', printer_type: '96 Well Plate', qcable_name: 'Tag Plate' });
    expect(byName['QC Plates']).toMatchObject({ template_class: 'PlateTemplate', printer_type: null, qcable_name: null });
    lotTypeUuid = byName['Tag Plates'].uuid;
  });

  it('GET barcode_printers: the active ones by barcode type', async () => {
    // `BarcodePrinter.all.select { |printer| printer.active && … }` then `printers[printer.barcode_type] << { name:, uuid: }`
    const res = await gatekeeper('GET', '/api/v2/barcode_printers');
    const active = res.body.data.filter((p: any) => p.attributes.active).map((p: any) => [p.attributes.barcode_type, p.attributes.name]);
    expect(active).toEqual(expect.arrayContaining([['96 Well Plate', 'plate-printer-1']]));
  });
});

describe('app/controllers/lots_controller.rb: lot registration and the lot page', () => {
  it('#create: finds the template by uuid, then saves the lot; gatekeeper redirects to the lot by the uuid it reads back', async () => {
    templateUuid = await uuidOf('tag_layout_templates', 'name', 'Test i7 column');
    userUuid = await adminUuid();
    // `template_resource.find(uuid: params[:template]).first` (template_class TagLayoutTemplate)
    const found = await gatekeeper('GET', `/api/v2/tag_layout_templates?filter[uuid]=${templateUuid}`);
    const template = found.body.data[0];
    // `Lot.new(user_uuid:, lot_number:, lot_type_uuid:, template_type:, template_id: template.id, received_at: '%Y-%m-%d').save`
    const res = await gatekeeper('POST', '/api/v2/lots', {
      data: {
        type: 'lots',
        attributes: {
          user_uuid: userUuid,
          lot_number: 'GK-LOT-1',
          lot_type_uuid: lotTypeUuid,
          template_type: 'TagLayoutTemplate',
          template_id: template.id,
          received_at: '2026-12-01',
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      lot_number: 'GK-LOT-1',
      lot_type_name: 'Tag Plates',
      template_name: 'Test i7 column',
      template_type: 'TagLayoutTemplate',
      template_id: Number(template.id),
      received_at: '2026-12-01',
    });
    lotUuid = res.body.data.attributes.uuid;
    expect(lotUuid).toEqual(expect.any(String));
  });

  it('#search: Lot.find(lot_number:) finds the lot (stamps_controller: Lot.where(lot_number:).all, the same call)', async () => {
    const res = await gatekeeper('GET', '/api/v2/lots?filter[lot_number]=GK-LOT-1');
    expect(res.body.data.map((l: any) => l.attributes.uuid)).toEqual([lotUuid]);
  });

  it('app/controllers/qcables_controller.rb #create: makes 96 tag plates by count; reads their barcodes back for the labels', async () => {
    // find_lot: `Lot.where(uuid: params[:lot_id]).first`; the user: `User.where(uuid: @user.id).first`
    const lot = (await gatekeeper('GET', `/api/v2/lots?filter[uuid]=${lotUuid}&${FIRST}`)).body.data[0];
    const user = (await gatekeeper('GET', `/api/v2/users?filter[uuid]=${userUuid}&${FIRST}`)).body.data[0];
    // qcable_name: `(Settings.lot_types[@lot.lot_type_name] || @lot.lot_type).qcable_name`, the lot type by its related link
    expect(lot.attributes.lot_type_name).toBe('Tag Plates');
    const lotType = await gatekeeper('GET', pathOf(lot.relationships.lot_type.links.related));
    expect(lotType.body.data.attributes.qcable_name).toBe('Tag Plate');
    // `QcableCreator.new(count: params[:plate_number].to_i)`, `.user = user`, `.lot = @lot`, `.save`
    const created = await gatekeeper('POST', '/api/v2/qcable_creators', {
      data: {
        type: 'qcable_creators',
        attributes: { count: 96 },
        relationships: { user: { data: { type: 'users', id: user.id } }, lot: { data: { type: 'lots', id: lot.id } } },
      },
    });
    expect(created.status).toBe(201);
    // print_labels: `qc_creator.qcables.map { |q| … q.labware_barcode['human_barcode'], q.labware_barcode['machine_barcode'] … }`
    const qcables = await gatekeeper('GET', pathOf(created.body.data.relationships.qcables.links.related));
    expect(qcables.body.data).toHaveLength(96);
    const humans = qcables.body.data.map((q: any) => q.attributes.labware_barcode.human_barcode);
    expect(new Set(humans).size).toBe(96);
    for (const q of qcables.body.data) {
      expect(q.attributes.labware_barcode.human_barcode).toMatch(/^DN\d+[A-Z]$/);
      expect(q.attributes.labware_barcode.machine_barcode).toMatch(/^\d{13}$/);
    }
  });

  it('#upload: makes one tag plate per supplier barcode (PlateUploader#payload: the barcodes joined by commas)', async () => {
    const lot = (await gatekeeper('GET', `/api/v2/lots?filter[uuid]=${lotUuid}&${FIRST}`)).body.data[0];
    const user = (await gatekeeper('GET', `/api/v2/users?filter[uuid]=${userUuid}&${FIRST}`)).body.data[0];
    const created = await gatekeeper('POST', '/api/v2/qcable_creators', {
      data: {
        type: 'qcable_creators',
        attributes: { barcodes: 'IDT-GK-1,IDT-GK-2,IDT-GK-3' },
        relationships: { user: { data: { type: 'users', id: user.id } }, lot: { data: { type: 'lots', id: lot.id } } },
      },
    });
    const qcables = await gatekeeper('GET', pathOf(created.body.data.relationships.qcables.links.related));
    // `flash[:success] = "#{qc_creator.qcables.count} …"`
    expect(qcables.body.data.map((q: any) => q.attributes.labware_barcode.human_barcode)).toEqual(['IDT-GK-1', 'IDT-GK-2', 'IDT-GK-3']);
  });

  it('#show (find_lot): Lot.includes(:lot_type, :qcables).where(uuid:).first — what Presenter::Lot and Presenter::Qcable read', async () => {
    const res = await gatekeeper('GET', `/api/v2/lots?filter[uuid]=${lotUuid}&include=lot_type,qcables&${FIRST}`);
    const lot = res.body.data[0];
    // Presenter::Lot delegates lot_number, uuid, id, lot_type_name, template_name; received_at.to_date
    expect(lot.attributes).toMatchObject({
      lot_number: 'GK-LOT-1',
      uuid: lotUuid,
      lot_type_name: 'Tag Plates',
      template_name: 'Test i7 column',
      received_at: '2026-12-01',
    });
    // child_type and printer_type: lot.lot_type.qcable_name, lot.lot_type.printer_type
    const [lotType] = includedOf(res, lot.relationships.lot_type);
    expect(lotType.attributes).toMatchObject({ qcable_name: 'Tag Plate', printer_type: '96 Well Plate' });
    // total_plates, sorted_qcables (by state), prefix (human_barcode's letters); Presenter::Qcable: stamp_index, uuid
    const qcables = includedOf(res, lot.relationships.qcables);
    expect(qcables).toHaveLength(99);
    expect(new Set(qcables.map((q) => q.attributes.state))).toEqual(new Set(['created']));
    expect(qcables[0].attributes.labware_barcode.human_barcode).toMatch(/^DN/);
    expect(qcables.every((q) => q.attributes.stamp_index === null && typeof q.attributes.uuid === 'string')).toBe(true);
  });
});
