import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, warmKeyCache, type CallResult } from '../support/api.ts';
import limber from '../fixtures/limber-purposes.json' with { type: 'json' };
import { inBatches, recordCount, uniqueName } from '../support/fixtures.ts';
import { filledPlate, poolPlate } from '../support/lab.ts';
import { faradayQuery } from '../support/limber.ts';
import { patchState } from '../support/requests.ts';
import { expectError } from '../support/responses.ts';
import { tableSnapshot } from '../support/table.ts';
import { ADMIN_KEY, freshStore, READ_KEY, WRITE_KEY } from '../support/store.ts';
import { changeState, postStateChange, requestsOfSubmission, workTube } from '../support/work.ts';

/**
 * Limber can be configured against the service (issue 21, item 0; contract §6): its `rake config:generate`
 * (sanger/limber lib/tasks/config.rake, lib/purpose_config.rb) run on its real purpose configuration — the
 * 362 purposes of its config/purposes/*.yml, test/fixtures/limber-purposes.json — call by call as its
 * json_api_client puts them on the wire: paged reads of submission templates and of every purpose
 * (`select(:uuid, :name).paginate(per_page: 100)`), one `create!` per purpose it does not find by name (with an
 * admin key), then the transfer templates. What it registers is then what its labware is: a plate's size
 * comes from its purpose, and the purpose says which state changer moves it.
 */

/** A purpose of Limber's configuration: the options its registration reads. */
type Options = {
  asset_type: string;
  stock_plate?: boolean;
  cherrypickable_target?: boolean;
  input_plate?: boolean;
  size?: number;
  asset_shape?: string;
  target?: string;
  type?: string;
};
const CONFIG = Object.entries(limber.purposes as Record<string, Options>);
const DEFAULT_PURPOSES = 10;

/** `Sequencescape::Api::V2.merge_page_results(query)`: page 1, whose `last` link gives the page count, then the others. */
async function allPages(type: string): Promise<{ records: any[]; answers: CallResult[] }> {
  const page = (number: number) =>
    call('GET', `/api/v2/${type}?${faradayQuery({ fields: { [type]: 'uuid,name' }, page: { number: String(number), size: '100' } })}`);
  const first = await page(1);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const pages = Number(new URL(first.body.links.last).searchParams.get('page[number]'));
  const answers = [first];
  for (let number = 2; number <= pages; number++) answers.push(await page(number));
  for (const answer of answers) expect(answer.status).toBe(200);
  return { records: answers.flatMap((a) => a.body.data), answers };
}

/**
 * `PurposeConfig::<Kind>#register!`: the attributes Limber's `create!` sends for a purpose of its config, or
 * the option it `fetch`es and the config lacks (Ruby raises there, before any call).
 */
function registration(name: string, options: Options): { type: string; attributes: Record<string, unknown> } | { lacks: string } {
  if (options.asset_type === 'plate') {
    const { stock_plate = false, cherrypickable_target = false, input_plate = false, size = 96, asset_shape } = options;
    return { type: 'plate_purposes', attributes: { name, stock_plate, cherrypickable_target, input_plate, size, ...(asset_shape ? { asset_shape } : {}) } };
  }
  if (options.asset_type === 'tube') {
    if (options.target === undefined) return { lacks: 'target' };
    if (options.type === undefined) return { lacks: 'type' };
    return { type: 'tube_purposes', attributes: { name, target_type: options.target, purpose_type: options.type } };
  }
  const { size = 96, target = 'TubeRack', type = 'TubeRack::Purpose' } = options;
  return { type: 'tube_rack_purposes', attributes: { name, size, target_type: target, purpose_type: type } };
}

interface Generated {
  registered: CallResult[];
  /** Purposes Limber's own code cannot register (a `fetch` of an option its config lacks). */
  unregistrable: string[];
  reads: CallResult[];
}

/** `rake config:generate`, as far as it calls the service. */
async function configGenerate(): Promise<Generated> {
  const templates = await allPages('submission_templates');
  const purposes = await allPages('purposes');
  const known = new Set(purposes.records.map((p) => p.attributes.name));
  const unregistrable: string[] = [];
  const bodies = CONFIG.filter(([name]) => !known.has(name)).flatMap(([name, options]) => {
    const body = registration(name, options);
    if (!('lacks' in body)) return [{ name, ...body }];
    unregistrable.push(`${name} (no :${body.lacks})`);
    return [];
  });
  // Limber sends them one after another; eight at a time here keeps the suite short (the calls are the same).
  const registered = await inBatches(bodies.length, 8, async (i) => {
    const { name, type, attributes } = bodies[i]!;
    const res = await call('POST', `/api/v2/${type}`, { body: doc(type, attributes), key: ADMIN_KEY });
    expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(201);
    return res;
  });
  const transferTemplates = await allPages('transfer_templates');
  return { registered, unregistrable, reads: [...templates.answers, ...purposes.answers, ...transferTemplates.answers] };
}

/** What a registered purpose renders: what Limber sent, with its kind's defaults and barcode prefix. */
function expectedAttributes(name: string, options: Options): Record<string, unknown> {
  const { type, attributes } = registration(name, options) as { type: string; attributes: Record<string, unknown> };
  if (type === 'plate_purposes') return { ...attributes, asset_shape: options.asset_shape ?? 'Standard', barcode_prefix: 'DN' };
  return { ...attributes, barcode_prefix: type === 'tube_purposes' ? 'NT' : 'TR' };
}

/** One tube purpose registered by name. */
const registerTube = (name: string) =>
  call('POST', '/api/v2/tube_purposes', { body: doc('tube_purposes', { name, target_type: 'SampleTube' }), key: ADMIN_KEY });

const configured = (test: (options: Options) => boolean): string => CONFIG.find(([, options]) => test(options))![0];

let first: Generated;
beforeAll(async () => {
  await freshStore();
  await warmKeyCache(ADMIN_KEY);
  first = await configGenerate();
}, 600_000);

describe('rake config:generate against the service', () => {
  it('registers every purpose of Limber’s configuration it does not find, each with one POST of unchanging cost', async () => {
    const names = first.registered.map((res) => res.body.data.attributes.name);
    // `Stock Plate` is in the default data already; one tube purpose's config lacks the :target Limber's code fetches.
    expect(first.unregistrable).toEqual(['UPF Balanced Norm (no :target)']);
    expect(names).toEqual(CONFIG.map(([name]) => name).filter((name) => name !== 'Stock Plate' && name !== 'UPF Balanced Norm'));
    expect(names).toHaveLength(360);
    // A registration costs the id, then one transaction (the purpose, its name guard, the count), however many are stored.
    expect(Math.min(...first.registered.map((res) => res.calls))).toBe(2);
    await warmKeyCache(ADMIN_KEY);
    expect((await registerTube(uniqueName('Late'))).calls).toBe(2);
    expect(await recordCount('purposes')).toBe(DEFAULT_PURPOSES + 360 + 1);
    const kinds = (asset: string) => CONFIG.filter(([name, o]) => o.asset_type === asset && names.includes(name)).length;
    expect([await recordCount('plate_purposes'), await recordCount('tube_purposes'), await recordCount('tube_rack_purposes')]).toEqual([
      5 + kinds('plate'),
      3 + kinds('tube') + 1,
      2 + kinds('tube_rack'),
    ]);
  });

  it('finds them all the next time: a second run pages through every purpose and registers nothing', async () => {
    const again = await configGenerate();
    expect(again.registered).toEqual([]);
    expect(again.unregistrable).toEqual(first.unregistrable);
    const purposePages = again.reads.filter((res) => res.body.data[0]?.type.endsWith('purposes'));
    expect(purposePages.map((res) => res.body.data.length)).toEqual([100, 100, 100, 71]);
    // `fields[purposes]=uuid,name`: nothing else is rendered; each record as its own kind.
    const records = purposePages.flatMap((res) => res.body.data);
    expect(new Set(records.map((r: any) => Object.keys(r.attributes).sort().join()))).toEqual(new Set(['name,uuid']));
    expect(new Set(records.map((r: any) => r.type))).toEqual(new Set(['plate_purposes', 'tube_purposes', 'tube_rack_purposes']));
    // A page read costs the same on the last page as on the first.
    expect(new Set(purposePages.map((res) => res.calls)).size).toBe(1);
  });

  it('stores each purpose as Limber sent it, with the defaults of its kind', async () => {
    const res = await call('GET', '/api/v2/purposes?page[size]=500');
    const stored = new Map(res.body.data.map((p: any) => [p.attributes.name, p]));
    for (const registered of first.registered) {
      const name = registered.body.data.attributes.name;
      const options = limber.purposes[name as keyof typeof limber.purposes] as Options;
      const { uuid, ...attributes } = (stored.get(name) as any).attributes;
      expect(attributes, name).toEqual(expectedAttributes(name, options));
      expect(registered.body.data.attributes).toEqual({ uuid, ...attributes });
    }
    // Limber's Purpose.find(name:) is filter[name], case-insensitive like the reference's names.
    const [anyName] = first.registered.map((r) => r.body.data.attributes.name);
    const found = await call('GET', `/api/v2/purposes?filter[name]=${encodeURIComponent(anyName.toUpperCase())}`);
    expect(found.body.data.map((p: any) => p.attributes.name)).toEqual([anyName]);
  });
});

describe('what a registered purpose makes of its labware', () => {
  const plateOf = async (purposeName: string) => {
    const [purpose] = (await call('GET', `/api/v2/plate_purposes?filter[name]=${encodeURIComponent(purposeName)}`)).body.data;
    const res = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: purpose.id } } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const wells = await call('GET', `/api/v2/plates/${res.body.data.id}/wells?page[size]=500`);
    return { ...res.body.data.attributes, wells: wells.body.data.map((w: any) => w.attributes.position.name) };
  };

  it('a plate takes its purpose’s size and shape: 384 wells, or a strip of 8', async () => {
    const big = await plateOf(configured((o) => o.asset_type === 'plate' && o.size === 384));
    expect([big.size, big.number_of_rows, big.number_of_columns, big.wells.length, big.wells.at(-1)]).toEqual([384, 16, 24, 384, 'P24']);
    const strip = await plateOf(configured((o) => o.asset_shape === 'Shape8x1'));
    expect([strip.size, strip.number_of_rows, strip.number_of_columns, strip.wells]).toEqual([8, 1, 8, ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8']]);
  });

  it('input_plate chooses the input plate state changer: failing it fails the requests out of it; a standard plate has nothing to move', async () => {
    const plateWithRequest = async (purposeName: string) => {
      const { plate } = await filledPlate(1, purposeName);
      const [submission] = await poolPlate(plate.id, [['A1']]);
      // Work on it has started (a pending request is cancelled, not failed, by the reference's machine).
      for (const request of await requestsOfSubmission(submission!)) expect((await patchState(request.id, 'started')).status).toBe(200);
      return { plate, submission: submission! };
    };
    const input = await plateWithRequest(configured((o) => o.asset_type === 'plate' && o.input_plate === true && (o.size ?? 96) === 96));
    await changeState(input.plate, 'failed', { reason: 'Degraded' });
    expect((await requestsOfSubmission(input.submission)).map((r) => r.attributes.state)).toEqual(['failed']);

    const standard = await plateWithRequest(configured((o) => o.asset_type === 'plate' && !o.input_plate && !o.stock_plate && (o.size ?? 96) === 96));
    expect(expectError(await postStateChange(standard.plate, 'failed', { reason: 'Degraded' }), 422).detail).toMatch(/nothing/);
    expect((await requestsOfSubmission(standard.submission)).map((r) => r.attributes.state)).toEqual(['started']);
  });
  it('purpose_type chooses the tube state changer: failing an MX tube leaves requests that do not end in it; a stock tube fails them', async () => {
    const failedTube = async (purposeName: string) => {
      const { tube, request } = await workTube(purposeName, 'started');
      await changeState(tube, 'failed', { reason: 'Degraded' });
      return (await call('GET', `/api/v2/requests/${request}`)).body.data.attributes.state;
    };
    expect(await failedTube(configured((o) => o.type === 'IlluminaHtp::MxTubePurpose'))).toBe('started');
    expect(await failedTube(configured((o) => o.type === 'Tube::Purpose'))).toBe('failed');
  });
});

describe('registration refused', () => {
  const post = (type: string, attributes: Record<string, unknown>, key: string | null = ADMIN_KEY) =>
    call('POST', `/api/v2/${type}`, { body: doc(type, attributes), key });

  it('needs an admin key: none 401, read or write 403; bad values a 422 at the field; a name in use 422; nothing written', async () => {
    const before = await tableSnapshot();
    const name = uniqueName('Refused');
    expectError(await post('plate_purposes', { name }, null), 401);
    expectError(await post('plate_purposes', { name }, READ_KEY), 403, 'forbidden');
    const writeKey = expectError(await post('tube_purposes', { name, target_type: 'SampleTube' }, WRITE_KEY), 403, 'forbidden');
    expect(writeKey.detail).toMatch(/admin key/);

    const refusals: [string, Record<string, unknown>, number, string, string][] = [
      ['plate_purposes', { name, size: 50 }, 422, 'invalid_value', 'size'],
      ['plate_purposes', { name, size: '96' }, 422, 'invalid_type', 'size'],
      ['plate_purposes', { name, size: 96, asset_shape: 'Shape8x1' }, 422, 'invalid_value', 'size'],
      ['plate_purposes', { name, asset_shape: 'Fluidigm96' }, 422, 'invalid_value', 'asset_shape'],
      ['plate_purposes', { name, stock_plate: 'yes' }, 422, 'invalid_type', 'stock_plate'],
      ['plate_purposes', { name: 'x' }, 422, 'invalid_value', 'name'],
      ['plate_purposes', { size: 96 }, 422, 'required', 'name'],
      ['plate_purposes', { name, barcode_prefix: 'XX' }, 400, 'param_not_allowed', 'barcode_prefix'],
      ['tube_purposes', { name, purpose_type: 'Tube::Purpose' }, 422, 'required', 'target_type'],
      ['tube_purposes', { name, target_type: 'SampleTube', purpose_type: 'Tube::Unknown' }, 422, 'invalid_value', 'purpose_type'],
      ['tube_rack_purposes', { name, size: 384 }, 422, 'invalid_value', 'size'],
      // Names are one space across the three kinds, whatever their case.
      ['tube_rack_purposes', { name: 'STOCK PLATE' }, 422, 'not_unique', 'name'],
    ];
    for (const [type, attributes, status, code, field] of refusals) {
      const error = expectError(await post(type, attributes), status, code, `/data/attributes/${field}`);
      expect(error.detail, JSON.stringify(attributes)).toContain(field);
    }
    // No record, count, index entry or event (a refused name guard may have taken an id: contract §1.3).
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('registered at once', () => {
  it('50 different purposes at once: every one 201, ids distinct, counted', async () => {
    const before = await recordCount('purposes');
    const answers = await Promise.all(Array.from({ length: 50 }, () => registerTube(uniqueName('Burst'))));
    expect(answers.filter((res) => res.status !== 201).map((res) => res.body)).toEqual([]);
    expect(new Set(answers.map((res) => res.body.data.id)).size).toBe(50);
    expect(await recordCount('purposes')).toBe(before + 50);
  });

  it('50 of the same name at once: exactly one 201, every other a 422 at the name', async () => {
    const before = await recordCount('purposes');
    const name = uniqueName('Same');
    const answers = await Promise.all(Array.from({ length: 50 }, () => registerTube(name)));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 201)) expectError(res, 422, 'not_unique', '/data/attributes/name');
    expect(await recordCount('purposes')).toBe(before + 1);
    expect((await call('GET', `/api/v2/purposes?filter[name]=${name}`)).body.data).toHaveLength(1);
  });
});
