import { beforeAll, describe, expect, it } from 'vitest';
import { killProcessAfter } from '#lib/store/client.ts';
import { recoverTransactions } from '#lib/store/recovery.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { commandsOf, commitPointOf, metadataOn } from '../support/large-writes.ts';
import { observeCalls, type ObservedCalls } from '../support/dynamodb-calls.ts';
import { createPlate, createTube, inBatches, purposeId, rel, uniqueName } from '../support/fixtures.ts';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { auditPut, drawEntryNumber, type AuditEntry } from '#lib/store/audit-trail.ts';
import { adminUuid, filledPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { putItems } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { refused, scanTable } from '../support/table.ts';

/**
 * The audit trail of a labware (contract §7.6): every write that touched a labware or its receptacles is
 * one entry of `labware_audits`, newest first, with who, when and what — written with the write itself
 * (lib/jsonapi/audit.ts derives it from the write's events), nothing for a refused write, never expiring.
 */

beforeAll(freshStore);

let admin: { id: string; uuid: string };
beforeAll(async () => {
  admin = { id: await idOf('users', 'login', 'admin'), uuid: await adminUuid() };
});

const trail = (labware: string, query = '') => call('GET', `/api/v2/labware_audits?filter[labware]=${labware}${query}`);

/** Every entry of a labware's trail, walked page by page through `links.next` (as a client walks it). */
async function walk(labware: string, size: number): Promise<any[]> {
  const entries: any[] = [];
  let next: string | undefined = `/api/v2/labware_audits?filter[labware]=${labware}&page[size]=${size}`;
  while (next) {
    const res = await call('GET', next.replace('https://lts.test', ''));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    entries.push(...res.body.data);
    next = res.body.links.next;
  }
  return entries;
}

const post = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call('POST', `/api/v2/${type}`, { body: doc(type, attributes, relationships) });

/** The audit items in the table (their own partitions: `$lts#audit_…`). */
const auditItems = async () => (await scanTable()).filter((item) => String(item.pk).startsWith('$lts#audit_'));

describe('a plate through a lab day, then its trail', () => {
  let plate: any;
  let stock: any;
  const steps: { action: string; who: string }[] = [];

  beforeAll(async () => {
    ({ plate: stock } = await filledPlate(2));
    plate = await createPlate('Library Plate');
    steps.push({ action: 'plates.created', who: 'test-write' });

    const moved = await postTransfer({
      template: await templateUuid('Transfer columns 1-12'),
      source: stock.attributes.uuid,
      destination: plate.attributes.uuid,
      user: admin.uuid,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    steps.push({ action: 'transfers.created', who: 'admin' });

    const changed = await post('state_changes', { target_uuid: plate.attributes.uuid, target_state: 'started', reason: 'robot run 7', user_uuid: admin.uuid });
    expect(changed.status, JSON.stringify(changed.body)).toBe(201);
    steps.push({ action: 'state_changes.created', who: 'admin' });

    const barcode = plate.attributes.labware_barcode.human_barcode;
    const result = (well: string) => ({ barcode, well_location: well, key: 'concentration', value: '12.3', units: 'ng/ul', assay_type: 'ISC' });
    const qc = await call('POST', '/api/v2/qc_assays', {
      body: { data: { type: 'qc_assays', attributes: { lot_number: 'KIT-1', qc_results: [result('A1'), result('B1')] } } },
    });
    expect(qc.status, JSON.stringify(qc.body)).toBe(201);
    steps.push({ action: 'qc_assays.created', who: 'test-write' });

    const tags = await post('tag_layouts', {
      plate_uuid: plate.attributes.uuid,
      tag_layout_template_uuid: await uuidOf('tag_layout_templates', 'name', 'Test dual column'),
      user_uuid: admin.uuid,
    });
    expect(tags.status, JSON.stringify(tags.body)).toBe(201);
    steps.push({ action: 'tag_layouts.created', who: 'admin' });

    const poly = await post(
      'poly_metadata',
      { key: uniqueName('key'), value: 'v' },
      { metadatable: { data: { type: 'wells', id: String(Number(plate.id) * 1000 + 1) } } },
    );
    expect(poly.status, JSON.stringify(poly.body)).toBe(201);
    steps.push({ action: 'poly_metadata.created', who: 'test-write' });

    const custom = await post('custom_metadatum_collections', { user_id: admin.id, asset_id: plate.id, metadata: { robot: 'bed-1' } });
    expect(custom.status, JSON.stringify(custom.body)).toBe(201);
    steps.push({ action: 'custom_metadatum_collections.created', who: 'test-write' });

    const second = await post('state_changes', {
      target_uuid: plate.attributes.uuid,
      target_state: 'passed',
      reason: 'all good',
      contents: ['A1'],
      user_uuid: admin.uuid,
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    steps.push({ action: 'state_changes.created', who: 'admin' });
  }, 120_000);

  it('lists every write once, newest first, with who, when and what', async () => {
    const res = await trail(plate.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = res.body.data;
    expect(res.body.meta.record_count).toBe(steps.length);
    expect(entries.map((e: any) => ({ action: e.attributes.action, who: e.attributes.who }))).toEqual([...steps].reverse());
    const times = entries.map((e: any) => e.attributes.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(entries.map((e: any) => e.id)).size).toBe(entries.length);
    for (const entry of entries) expect(entry.relationships.labware.data).toEqual({ type: 'plates', id: plate.id });

    const [last, , , , , started] = entries;
    expect(last.attributes).toMatchObject({ user_uuid: admin.uuid, user_login: 'admin', api_key: 'test-write' });
    expect(last.attributes.subjects[0].attributes).toMatchObject({ target_state: 'passed', reason: 'all good', contents: ['A1'] });
    expect(started.attributes.subjects[0].attributes).toMatchObject({ target_state: 'started', reason: 'robot run 7' });
    expect(started.attributes.changes).toMatchObject({ 'state_changes.created': 1, 'plates.state_changed': 1 });
  });

  it('is read by the labware uuid too, and the source plate shows the transfer out', async () => {
    const byUuid = await trail(plate.attributes.uuid);
    expect(byUuid.body.data.map((e: any) => e.id)).toEqual((await trail(plate.id)).body.data.map((e: any) => e.id));
    const source = (await trail(stock.id)).body.data;
    expect(source[0].attributes.action).toBe('transfers.created');
  });

  it('pages newest first; a walk by links shows every entry once, even as new writes land', async () => {
    const whole = (await trail(plate.id)).body.data.map((e: any) => e.id);
    const first = await trail(plate.id, '&page[size]=3');
    expect(first.body.data.map((e: any) => e.id)).toEqual(whole.slice(0, 3));
    // A write lands in the middle of the walk: the walk goes on after the entries it has shown.
    const next = first.body.links.next.replace('https://lts.test', '');
    const meta = await post('poly_metadata', { key: uniqueName('key'), value: 'v' }, { metadatable: { data: { type: 'plates', id: plate.id } } });
    expect(meta.status).toBe(201);
    const rest = [] as string[];
    let link: string | undefined = next;
    while (link) {
      const res = await call('GET', link.replace('https://lts.test', ''));
      rest.push(...res.body.data.map((e: any) => e.id));
      link = res.body.links.next;
    }
    expect([...first.body.data.map((e: any) => e.id), ...rest]).toEqual(whole);
    expect((await walk(plate.id, 2)).map((e) => e.id)).toEqual((await trail(plate.id)).body.data.map((e: any) => e.id));
  });

  it("a transfer request collection out of a well is in the source plate's trail too, though the collection names only its targets", async () => {
    const tube = await createTube();
    const well = slotUuid(stock.attributes.uuid, 1);
    const moved = await post('transfer_request_collections', {
      transfer_requests_attributes: [{ source_asset: well, target_asset: tube.attributes.uuid }],
      user_uuid: admin.uuid,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    for (const labware of [stock.id, tube.id])
      expect((await trail(labware)).body.data[0].attributes).toMatchObject({ action: 'transfer_request_collections.created', who: 'admin' });
  });

  it('a refused write adds nothing', async () => {
    const before = (await trail(plate.id)).body.meta.record_count;
    await refused(
      'POST',
      '/api/v2/state_changes',
      doc('state_changes', { target_uuid: plate.attributes.uuid, target_state: 'no such state', user_uuid: admin.uuid }),
    );
    expect((await trail(plate.id)).body.meta.record_count).toBe(before);
  });

  it('refuses a missing or doubled filter and another order, each a 400 naming it', async () => {
    const none = await call('GET', '/api/v2/labware_audits');
    expect(none.status).toBe(400);
    expect(none.body.errors[0].source).toEqual({ parameter: 'filter[labware]' });
    const two = await call('GET', `/api/v2/labware_audits?filter[labware]=${plate.id},${stock.id}`);
    expect(two.status).toBe(400);
    expect(two.body.errors[0].source).toEqual({ parameter: 'filter[labware]' });
    const sorted = await call('GET', `/api/v2/labware_audits?filter[labware]=${plate.id}&sort=id`);
    expect(sorted.status).toBe(400);
    expect(sorted.body.errors[0].source).toEqual({ parameter: 'sort' });
    const unknown = await trail('999999999');
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
  });

  it('entries carry no expiry', async () => {
    const items = await auditItems();
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.ttl).toBeUndefined();
  });
});

describe('what it costs and how it holds under concurrency', () => {
  it('one item per labware a write touches: a plate 1, a transfer 2', async () => {
    const plate = await createPlate('Library Plate');
    const purpose = rel('plate_purposes', await purposeId('plate_purposes', 'Stock Plate'));
    const created = await observeCalls(() => post('plates', {}, { purpose }));
    expect(created.result.status).toBe(201);
    expect(created.transactions).toEqual([5]);
    const { plate: stock } = await filledPlate(1);
    const template = await templateUuid('Transfer columns 1-12');
    const before = (await auditItems()).length;
    const moved = await observeCalls(() => postTransfer({ template, source: stock.attributes.uuid, destination: plate.attributes.uuid, user: admin.uuid }));
    expect(moved.result.status, JSON.stringify(moved.result.body)).toBe(201);
    expect((await auditItems()).length - before).toBe(2);
    console.info('[measured] transfer of one well', moved.commands, `transactions ${moved.transactions.join(' ')}`);
  });

  it('50 concurrent writes to one labware: 50 entries, none lost', { timeout: 120_000 }, async () => {
    const plate = await createPlate();
    const results = await inBatches(50, 50, (i) =>
      post('poly_metadata', { key: `k${i}-${uniqueName()}`, value: 'v' }, { metadatable: { data: { type: 'plates', id: plate.id } } }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const entries = await walk(plate.id, 500);
    expect(entries.filter((e) => e.attributes.action === 'poly_metadata.created')).toHaveLength(50);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });
});

describe('a write past one transaction', () => {
  /** 30 metadata on a plate and 30 on its first well: 241 records and index entries, one plate touched. */
  const bulkOn = (plate: { id: string }, prefix: string) =>
    call('POST', '/api/v2/poly_metadata/bulk_create', {
      body: {
        data: [
          ...metadataOn({ type: 'plates', id: plate.id }, 30, `${prefix}-p`),
          ...metadataOn({ type: 'wells', id: String(Number(plate.id) * 1000 + 1) }, 30, `${prefix}-w`),
        ],
      },
    });
  /** The actions a plate's trail lists, the same read whole, page by page by number, and walked one entry a page (each way reads its own). */
  const actions = async (plate: { id: string }) => {
    const whole = await trail(plate.id);
    const listed = whole.body.data.map((e: any) => e.attributes.action);
    const byNumber: string[] = [];
    for (let n = 1; n <= listed.length + 1; n++) {
      const res = await trail(plate.id, `&page[size]=1&page[number]=${n}`);
      expect(res.body.meta.record_count).toBe(whole.body.meta.record_count);
      byNumber.push(...res.body.data.map((e: any) => e.attributes.action));
    }
    expect(byNumber).toEqual(listed);
    expect((await walk(plate.id, 1)).map((e) => e.attributes.action)).toEqual(listed);
    expect(whole.body.meta.record_count).toBe(listed.length);
    return listed;
  };

  it('is one entry per labware, absent until its commit point, present from it on (crashes on either side)', { timeout: 120_000 }, async () => {
    const measuredPlate = await createPlate();
    await warmKeyCache();
    const { result, commands } = await commandsOf(() => bulkOn(measuredPlate, uniqueName('m')));
    expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(201);
    const commitAt = commitPointOf(commands);
    expect(commitAt).toBeGreaterThan(1);
    expect(await actions(measuredPlate)).toEqual(['poly_metadata.created', 'plates.created']);
    const [entry] = (await trail(measuredPlate.id)).body.data;
    expect(entry.attributes.changes).toEqual({ 'poly_metadata.created': 60 });
    expect(entry.attributes.more_subjects).toBe(50);

    // Killed just before its commit point: no entry, nor after recovery undoes it.
    const before = await createPlate();
    expect((await killProcessAfter(commitAt - 1, () => bulkOn(before, uniqueName('b')))).status).toBe(500);
    expect(await actions(before)).toEqual(['plates.created']);
    await recoverTransactions(Date.now() + 3_600_000);
    expect(await actions(before)).toEqual(['plates.created']);

    // Killed just after it: the entry is there at once (committed, not yet applied), once.
    const after = await createPlate();
    expect((await killProcessAfter(commitAt, () => bulkOn(after, uniqueName('a')))).status).toBe(500);
    expect(await actions(after)).toEqual(['poly_metadata.created', 'plates.created']);
    await recoverTransactions(Date.now() + 3_600_000);
    expect(await actions(after)).toEqual(['poly_metadata.created', 'plates.created']);
  });
});

describe('a busy labware: a trail of 1,200 entries of about 2.7 KB', () => {
  const SEEDED = 1200;
  const SIZE = 20;
  /** The seeded entries' times: a minute apart, long before the plate's own creation (and `ms` after). */
  const minute = (i: number, ms = 0) => new Date(Date.UTC(2026, 0, 1) + i * 60_000 + ms).toISOString();
  /** An entry as a rack's state change writes it: ten subjects with their reasons and contents (~2.7 KB as stored). */
  const entryOn = (labware: number, at: string): AuditEntry => ({
    labware_id: labware,
    at,
    n: drawEntryNumber(),
    user: null,
    api_key: 'seeded',
    action: 'state_changes.created',
    changes: { 'state_changes.created': 1, 'tubes.state_changed': 10 },
    subjects: Array.from({ length: 10 }, (_, i) => ({
      type: 'state_changes',
      id: String(i + 1),
      attributes: { target_state: 'passed', reason: `${'checked by the bench robot '.repeat(4)}${i}`, contents: ['A1', 'B1', 'C1', 'D1', 'E1', 'F1'] },
    })),
    more_subjects: 0,
  });
  let plate: any;
  /** The plate's trail as seeded, newest first: its creation, then the seeded entries. */
  let expected: string[];
  let seeded: AuditEntry[];
  let trailBytes: number;

  beforeAll(async () => {
    plate = await createPlate();
    // Seeded straight into the table as the service writes them (auditPut): 1,200 writes through the API would take minutes.
    seeded = Array.from({ length: SEEDED }, (_, i) => entryOn(Number(plate.id), minute(i)));
    const items = seeded.map((entry) => auditPut(entry).Item);
    trailBytes = JSON.stringify(items).length;
    await putItems(items);
    const [created] = (await trail(plate.id, '&page[size]=1')).body.data;
    expected = [created.id, ...seeded.map((entry) => String(entry.n)).reverse()];
    await warmKeyCache();
  }, 120_000);

  /** What a request read of the trail: its Queries, the entries read whole (with their subjects), the keys read alone, the bytes. */
  const trailReads = (observed: ObservedCalls<unknown>) => {
    const queries = observed.reads.filter((read) => read.command === 'QueryCommand');
    const items = queries.flatMap((read) => read.items);
    return {
      queries: observed.commands.QueryCommand ?? 0,
      whole: items.filter((item) => 'subjects' in item).length,
      keys: items.filter((item) => !('subjects' in item)).length,
      bytes: queries.reduce((sum, read) => sum + read.bytes, 0),
    };
  };
  /** A page by its query, or by the link a page gave. */
  const page = async (query: string, link?: string) => {
    const observed = await observeCalls(() => (link ? call('GET', link.replace('https://lts.test', '')) : trail(plate.id, query)));
    expect(observed.result.status, JSON.stringify(observed.result.body).slice(0, 500)).toBe(200);
    return { body: observed.result.body, reads: trailReads(observed) };
  };

  it('a first page of 20 reads its 20 entries and one more whole, and only the keys of the rest to count them', async () => {
    const first = await page(`&page[size]=${SIZE}`);
    expect(first.body.data.map((e: any) => e.id)).toEqual(expected.slice(0, SIZE));
    expect(first.body.meta.record_count).toBe(SEEDED + 1);
    expect(first.reads.whole).toBe(SIZE + 1);
    expect(first.reads.keys).toBe(SEEDED + 1);
    // The keys are ~100 bytes an entry: the page reads about a tenth of the trail's bytes, not the trail.
    expect(first.reads.bytes).toBeLessThan(trailBytes / 5);
    console.info('[measured] first page of 20 of a trail of 1,201', first.reads, `trail ${trailBytes} bytes`);
  });

  it('the next page by its cursor is one Query of 21 entries, whatever the trail holds', async () => {
    const first = await page(`&page[size]=${SIZE}`);
    const next = await page('', first.body.links.next);
    expect(next.body.data.map((e: any) => e.id)).toEqual(expected.slice(SIZE, 2 * SIZE));
    expect(next.body.meta.record_count).toBe(SEEDED + 1);
    expect(next.reads).toMatchObject({ queries: 1, whole: SIZE + 1, keys: 0 });
  });

  it('a page by number reads the keys and then its own entries alone; so do entries by id', async () => {
    const deep = await page(`&page[size]=${SIZE}&page[number]=31`);
    expect(deep.body.data.map((e: any) => e.id)).toEqual(expected.slice(30 * SIZE, 31 * SIZE));
    expect(deep.body.meta.record_count).toBe(SEEDED + 1);
    expect(deep.reads).toMatchObject({ whole: SIZE, keys: SEEDED + 1 });
    expect(deep.body.links.next).toBeDefined();
    const last = await page(`&page[size]=${SIZE}&page[number]=61`);
    expect(last.body.data.map((e: any) => e.id)).toEqual(expected.slice(60 * SIZE));
    expect(last.body.links.next).toBeUndefined();
    // Two entries far apart: each read alone, not the entries between them.
    const two = await page(`&filter[id]=${expected[900]},${expected[100]}`);
    expect(two.body.data.map((e: any) => e.id)).toEqual([expected[100], expected[900]]);
    expect(two.body.meta.record_count).toBe(2);
    expect(two.reads).toMatchObject({ whole: 2, keys: SEEDED + 1 });
  });

  it('a walk by links shows every entry committed before it once; of those committed during it, those its cursor had not passed', {
    timeout: 120_000,
  }, async () => {
    const before = (await page(`&page[size]=${SIZE}`)).body.meta.record_count;
    const walked: string[] = [];
    let next: string | undefined = `/api/v2/labware_audits?filter[labware]=${plate.id}&page[size]=100`;
    let late: { passed: AuditEntry; ahead: AuditEntry } | undefined;
    while (next) {
      const res = await call('GET', next.replace('https://lts.test', ''));
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      walked.push(...res.body.data.map((e: any) => e.id));
      next = res.body.links.next;
      if (late) continue;
      // After the first page: a new write (newer than all), and two writes that started long ago and commit only now
      // (written straight into the table: a request cannot be made to take minutes) — one at a time the walk has passed, one ahead of it.
      const meta = await post('poly_metadata', { key: uniqueName('key'), value: 'v' }, { metadatable: { data: { type: 'plates', id: plate.id } } });
      expect(meta.status).toBe(201);
      late = { passed: entryOn(Number(plate.id), minute(SEEDED - 10, 1)), ahead: entryOn(Number(plate.id), minute(500, 1)) };
      await putItems([auditPut(late.passed).Item, auditPut(late.ahead).Item]);
    }
    // Every entry committed before the walk once, in order; the one committed behind its cursor in its place; the others not.
    const ahead = String(late!.ahead.n);
    const at = expected.indexOf(String(seeded[500]!.n));
    expect(walked).toEqual([...expected.slice(0, at), ahead, ...expected.slice(at)]);
    expect(walked).toHaveLength(before + 1);
    const now = await page('&page[size]=500');
    expect(now.body.meta.record_count).toBe(before + 3);
    expect(now.body.data.map((e: any) => e.id)).toContain(String(late!.passed.n));
  });
});
