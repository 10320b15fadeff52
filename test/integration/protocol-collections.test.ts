import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_INCLUDE_DEPTH } from '#lib/jsonapi/include.ts';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/** Contract §1.4–1.5: collections (pagination, sorting, filters) and compound documents (include, fields). */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
type Resource = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data?: unknown; links: Record<string, string> }>;
};

function expectError(res: CallResult, status: number, code: string, parameter?: string) {
  expect(res.status).toBe(status);
  for (const e of res.body.errors) {
    expect(e).toMatchObject({ status: String(status), code });
    expect(e.title).toEqual(expect.stringMatching(/\S/));
    expect(e.detail).toEqual(expect.stringMatching(/\S/));
  }
  if (parameter !== undefined) expect(res.body.errors[0].source).toEqual({ parameter });
  return res.body.errors[0];
}

const byNumber = (a: string, b: string) => Number(a) - Number(b);
const pageParams = (link: string) => {
  const url = new URL(link);
  return { number: url.searchParams.get('page[number]'), size: url.searchParams.get('page[size]'), cursor: url.searchParams.get('page[cursor]') };
};
/** Every link is an absolute, valid URI: no raw brackets, spaces or commas in the query. */
const expectValidLink = (link: string) => {
  expect(link.startsWith(`${BASE}/`)).toBe(true);
  expect(link).not.toMatch(/[[\]\s,]/);
};

/** Follows `links.next` from `first` until it is absent; returns the ids in order and the links followed. */
async function walk(first: string) {
  const seen: string[] = [];
  const nexts: string[] = [];
  let res = await call('GET', first);
  for (;;) {
    expect(res.status).toBe(200);
    seen.push(...idsOf(res));
    const next: string | undefined = res.body.links.next;
    if (!next) return { seen, nexts, last: res };
    expectValidLink(next);
    nexts.push(next);
    expect(nexts.length).toBeLessThan(50);
    res = await call('GET', next.slice('https://lts.test'.length));
  }
}

let all: string[] = [];
let studyA: string;
let studyB: string;
beforeAll(async () => {
  studyA = await idOf('studies', 'name', 'Study A');
  studyB = await idOf('studies', 'name', 'Study B');
  for (let i = 1; i <= 12; i++) {
    const studies =
      i <= 2
        ? [
            { type: 'studies', id: studyA },
            { type: 'studies', id: studyB },
          ]
        : i <= 4
          ? [{ type: 'studies', id: studyA }]
          : [];
    const res = await call('POST', '/api/v2/samples', {
      body: doc('samples', { name: `coll-${String(i).padStart(2, '0')}`, site_sample_id: i % 2 ? 'odd' : 'even' }, { studies: { data: studies } }),
    });
    expect(res.status).toBe(201);
    all.push(res.body.data.id);
  }
  all = all.sort(byNumber);
});

describe('pagination (§1.5)', () => {
  it('defaults to page 1 of 100 with first and last links only', async () => {
    const res = await call('GET', '/api/v2/samples');
    expect(idsOf(res)).toEqual(all);
    expect(res.body.meta).toEqual({ record_count: 12 });
    expect(res.body.links).toEqual({
      first: `${BASE}/samples?page%5Bnumber%5D=1&page%5Bsize%5D=100`,
      last: `${BASE}/samples?page%5Bnumber%5D=1&page%5Bsize%5D=100`,
    });
  });

  it('links first, prev, next and last exactly when they apply', async () => {
    const p1 = await call('GET', '/api/v2/samples?page[size]=5');
    expect(idsOf(p1)).toEqual(all.slice(0, 5));
    expect(Object.keys(p1.body.links).sort()).toEqual(['first', 'last', 'next']);
    expect(pageParams(p1.body.links.last)).toMatchObject({ number: '3', size: '5' });

    const p2 = await call('GET', '/api/v2/samples?page[number]=2&page[size]=5');
    expect(idsOf(p2)).toEqual(all.slice(5, 10));
    expect(Object.keys(p2.body.links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(p2.body.links.prev).toBe(`${BASE}/samples?page%5Bnumber%5D=1&page%5Bsize%5D=5`);
    expect(pageParams(p2.body.links.next)).toMatchObject({ number: '3', size: '5' });

    const p3 = await call('GET', '/api/v2/samples?page[number]=3&page[size]=5');
    expect(idsOf(p3)).toEqual(all.slice(10));
    expect(Object.keys(p3.body.links).sort()).toEqual(['first', 'last', 'prev']);
    expect(p3.body.meta.record_count).toBe(12);

    const beyond = await call('GET', '/api/v2/samples?page[number]=9&page[size]=5');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.record_count).toBe(12);
    expect(pageParams(beyond.body.links.prev)).toMatchObject({ number: '3' });
    expect(beyond.body.links.next).toBeUndefined();
    for (const link of Object.values({ ...p1.body.links, ...p2.body.links, ...p3.body.links }) as string[]) expectValidLink(link);
  });

  it('keeps every other query parameter in the links, percent-encoded', async () => {
    const res = await call('GET', '/api/v2/samples?filter[site_sample_id]=odd&include=studies&fields[samples]=name,studies&page[size]=2&sort=-id');
    expect(res.body.meta.record_count).toBe(6);
    const odd = all.filter((_, i) => i % 2 === 0).reverse();
    expect(idsOf(res)).toEqual(odd.slice(0, 2));
    for (const name of ['first', 'next', 'last'] as const) {
      const link: string = res.body.links[name];
      expectValidLink(link);
      expect(link).toContain('filter%5Bsite_sample_id%5D=odd');
      expect(link).toContain('fields%5Bsamples%5D=name%2Cstudies');
      const url = new URL(link);
      expect(url.searchParams.get('include')).toBe('studies');
      expect(url.searchParams.get('sort')).toBe('-id');
    }
    expect(pageParams(res.body.links.last)).toMatchObject({ number: '3', size: '2' });
    const { seen } = await walk(res.body.links.first.slice('https://lts.test'.length));
    expect(seen).toEqual(odd);
  });

  it('walks a collection through links.next, every record once, by cursor', async () => {
    const { seen, nexts, last } = await walk('/api/v2/samples?page[size]=5');
    expect(seen).toEqual(all);
    expect(nexts).toHaveLength(2);
    for (const next of nexts) expect(next).toMatch(/page%5Bcursor%5D=[A-Za-z0-9_-]+/);
    expect(last.body.links.next).toBeUndefined();
    const down = await walk('/api/v2/samples?page[size]=5&sort=-id');
    expect(down.seen).toEqual([...all].reverse());
    const created = await walk('/api/v2/samples?page[size]=4&sort=created_at');
    expect(created.seen).toEqual(all);
  });

  it('continues a cursor walk where it left off when records are added meanwhile', async () => {
    const first = await call('GET', '/api/v2/samples?page[size]=5&sort=-id');
    const before = idsOf(first);
    const added = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'coll-added' }) });
    expect(added.status).toBe(201);
    const second = await call('GET', first.body.links.next.slice('https://lts.test'.length));
    expect(idsOf(second)).toEqual([...all].reverse().slice(5, 10));
    expect(idsOf(second).filter((id) => before.includes(id))).toEqual([]);
    // A bare page number still works, and counts the new record.
    const bare = await call('GET', '/api/v2/samples?page[number]=2&page[size]=5&sort=-id');
    expect(idsOf(bare)).toEqual([added.body.data.id, ...all].sort(byNumber).reverse().slice(5, 10));
    expect(bare.body.meta.record_count).toBe(13);
    all = [...all, added.body.data.id].sort(byNumber);
  });

  it('rejects out-of-range and non-integer page values with source.parameter', async () => {
    for (const [query, parameter] of [
      ['page[number]=0', 'page[number]'],
      ['page[number]=-1', 'page[number]'],
      ['page[number]=x', 'page[number]'],
      ['page[number]=1.5', 'page[number]'],
      ['page[size]=0', 'page[size]'],
      ['page[size]=-1', 'page[size]'],
      ['page[size]=501', 'page[size]'],
      ['page[size]=x', 'page[size]'],
      ['page%5Bsize%5D=501', 'page[size]'],
    ]) {
      expectError(await call('GET', `/api/v2/samples?${query}`), 400, 'invalid_page', parameter);
    }
    expectError(await call('GET', '/api/v2/barcode_printers?page[size]=0'), 400, 'invalid_page', 'page[size]');
    const max = await call('GET', '/api/v2/samples?page[size]=500&page[page]=3&page[per_page]=1');
    expect(idsOf(max)).toEqual(all);
  });

  it('answers a page far past the end with no data', async () => {
    for (const number of ['100000000', '99999999999999999999']) {
      const res = await call('GET', `/api/v2/samples?page[number]=${number}&page[size]=500`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.record_count).toBe(all.length);
      expect(pageParams(res.body.links.prev)).toMatchObject({ number: '1' });
    }
  });
});

describe('sorting (§1.5)', () => {
  it('sorts by id, created_at and updated_at, ascending or descending', async () => {
    expect(idsOf(await call('GET', '/api/v2/samples?sort=id'))).toEqual(all);
    expect(idsOf(await call('GET', '/api/v2/samples?sort=-id'))).toEqual([...all].reverse());
    expect(idsOf(await call('GET', '/api/v2/samples?sort=created_at'))).toEqual(all);
    expect(idsOf(await call('GET', '/api/v2/samples?sort=-created_at'))).toEqual([...all].reverse());
    const touched = all[3]!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await call('PATCH', `/api/v2/samples/${touched}`, { body: doc('samples', { control: false }, undefined, touched) });
    expect(patched.status).toBe(200);
    const recent = await call('GET', '/api/v2/samples?sort=-updated_at');
    expect(idsOf(recent)[0]).toBe(touched);
    expect(idsOf(recent).sort(byNumber)).toEqual(all);
    expect(idsOf(await call('GET', '/api/v2/samples?sort=updated_at')).at(-1)).toBe(touched);
    const walked = await walk('/api/v2/samples?sort=-updated_at&page[size]=5');
    expect(walked.seen).toEqual(idsOf(recent));
  });

  it('rejects any other sort field', async () => {
    for (const sort of ['name', '-name', 'uuid', 'id,name']) expectError(await call('GET', `/api/v2/samples?sort=${sort}`), 400, 'invalid_sort', 'sort');
  });

  it('rejects an empty sort field, naming it (not "undefined")', async () => {
    for (const sort of [',', '', 'id,', ',-id']) {
      const error = expectError(await call('GET', `/api/v2/samples?sort=${sort}`), 400, 'invalid_sort', 'sort');
      expect(error.detail).toMatch(/^sort ".*" has an empty field \(field \d\)/);
      expect(error.detail).not.toContain('undefined');
    }
  });
});

describe('filters (§1.5)', () => {
  it('rejects an unknown filter with source.parameter', async () => {
    expectError(await call('GET', '/api/v2/samples?filter[x]=1'), 400, 'filter_not_allowed', 'filter[x]');
    expectError(await call('GET', '/api/v2/samples?filter%5Bcolour%5D=red'), 400, 'filter_not_allowed', 'filter[colour]');
    expectError(await call('GET', '/api/v2/barcode_printers?filter[login]=admin'), 400, 'filter_not_allowed', 'filter[login]');
    expectError(await call('GET', `/api/v2/samples/${all[0]}/studies?filter[login]=a`), 400, 'filter_not_allowed', 'filter[login]');
  });

  it('rejects an unknown query parameter', async () => {
    expectError(await call('GET', '/api/v2/samples?foo=bar'), 400, 'invalid_parameter', 'foo');
    expectError(await call('GET', `/api/v2/samples/${all[0]}?page=1`), 400, 'invalid_parameter', 'page');
    expectError(await call('GET', '/api/v2/samples?filter=coll-01'), 400, 'invalid_parameter', 'filter');
  });

  it('reports a problem met twice once (JSON:API forbids duplicate errors)', async () => {
    expect((await call('GET', '/api/v2/samples?foo=1&foo=2')).body.errors).toHaveLength(1);
    expect((await call('GET', '/api/v2/samples?fields[samples]=colour,colour')).body.errors).toHaveLength(1);
    expect((await call('GET', '/api/v2/samples?foo=1&bar=2')).body.errors).toHaveLength(2);
  });

  it('matches any of a comma list or repeated keys, with raw or encoded brackets', async () => {
    const [a, b, c] = ['coll-01', 'coll-02', 'coll-03'];
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name]=${a},${b}`))).toEqual(all.slice(0, 2));
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name][]=${a}&filter[name][]=${c}`))).toEqual([all[0], all[2]]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter%5Bname%5D=${c}`))).toEqual([all[2]]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter%5Bname%5D%5B%5D=${a}&filter%5Bname%5D%5B%5D=${b}`))).toEqual(all.slice(0, 2));
    const uuids = (await call('GET', `/api/v2/samples?filter[name]=${a},${c}`)).body.data.map((r: Resource) => r.attributes.uuid);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[uuid][]=${uuids[0]}&filter[uuid][]=${uuids[1]}`))).toEqual([all[0], all[2]]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[uuid]=${uuids[0]},${uuids[1]}&filter[name]=${a}`))).toEqual([all[0]]);
    // Filters combine with paging and sorting.
    const odd = await call('GET', '/api/v2/samples?filter[site_sample_id]=odd&page[size]=2&page[number]=2&sort=-id');
    expect(idsOf(odd)).toEqual(
      all
        .slice(0, 12)
        .filter((_, i) => i % 2 === 0)
        .reverse()
        .slice(2, 4),
    );
  });

  it('filters read-only types by their lookups, spaces as + or %20', async () => {
    const printer = await call('GET', '/api/v2/barcode_printers?filter[name]=old-printer');
    expect(printer.body.data).toHaveLength(1);
    expect(printer.body.data[0].attributes).toMatchObject({ name: 'old-printer', active: false, print_service: 'PMB', barcode_type: '384 Well Plate' });
    const studies = await call('GET', '/api/v2/studies?filter[name]=Study+A,Study%20B');
    expect(studies.body.data.map((s: Resource) => s.attributes.name).sort()).toEqual(['Study A', 'Study B']);
    const admin = await call('GET', '/api/v2/users?filter[user_code]=SWIPE-0001');
    expect(admin.body.data.map((u: Resource) => u.attributes.login)).toEqual(['admin']);
    expect(admin.body.data[0].attributes).not.toHaveProperty('user_code');
    const template = await call('GET', '/api/v2/submission_templates?filter[name]=MX%20Pooling');
    expect(template.body.data[0].attributes.request_type_keys).toEqual(['multiplexing']);
  });

  it('answers an empty result as data: []', async () => {
    const res = await call('GET', '/api/v2/samples?filter[name]=no-such-sample');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.record_count).toBe(0);
    expect(pageParams(res.body.links.last)).toMatchObject({ number: '1' });
    expect(res.body.links.next).toBeUndefined();
  });
});

describe('include and fields (§1.4)', () => {
  it('builds a compound document with each included resource once, and linkage only for included relationships', async () => {
    const res = await call('GET', `/api/v2/samples?filter[name]=coll-01,coll-02,coll-03,coll-05&include=studies,sample_metadata`);
    expect(res.body.data).toHaveLength(4);
    const included = res.body.included.map((r: Resource) => `${r.type}:${r.id}`);
    expect(new Set(included).size).toBe(included.length);
    expect(included.filter((k: string) => k.startsWith('studies:')).sort()).toEqual([`studies:${studyA}`, `studies:${studyB}`].sort());
    expect(included.filter((k: string) => k.startsWith('sample_metadata:'))).toHaveLength(4);
    for (const sample of res.body.data as Resource[]) {
      expect(sample.relationships.studies).toHaveProperty('data');
      expect(sample.relationships.sample_metadata!.data).toMatchObject({ type: 'sample_metadata' });
      expect(sample.relationships.component_samples).not.toHaveProperty('data');
      expect(sample.relationships.sample_manifest).not.toHaveProperty('data');
      expect(sample.relationships.studies!.links).toEqual({
        self: `${BASE}/samples/${sample.id}/relationships/studies`,
        related: `${BASE}/samples/${sample.id}/studies`,
      });
    }
    const first = (res.body.data as Resource[]).find((s) => s.id === all[0])!;
    expect(first.relationships.studies!.data).toEqual([
      { type: 'studies', id: studyA },
      { type: 'studies', id: studyB },
    ]);
    expect((res.body.data as Resource[]).find((s) => s.id === all[4])!.relationships.studies!.data).toEqual([]);

    const plain = await call('GET', `/api/v2/samples/${all[0]}`);
    expect(plain.body).not.toHaveProperty('included');
    for (const rel of Object.values(plain.body.data.relationships as Resource['relationships'])) expect(rel).not.toHaveProperty('data');
  });

  it(`follows dotted paths up to ${MAX_INCLUDE_DEPTH} levels and 20 paths`, async () => {
    const nested = await call('GET', `/api/v2/samples/${all[0]}?include=sample_metadata.sample.studies`);
    expect(nested.status).toBe(200);
    expect(nested.body.included.map((r: Resource) => r.type).sort()).toEqual(['sample_metadata', 'studies', 'studies']);
    const metadata = nested.body.included.find((r: Resource) => r.type === 'sample_metadata');
    expect(metadata.relationships.sample.data).toEqual({ type: 'samples', id: all[0] });

    const chain = (n: number) => Array(n).fill('component_samples').join('.');
    expect((await call('GET', `/api/v2/samples/${all[0]}?include=${chain(MAX_INCLUDE_DEPTH)}`)).status).toBe(200);
    expectError(await call('GET', `/api/v2/samples/${all[0]}?include=${chain(MAX_INCLUDE_DEPTH + 1)}`), 400, 'invalid_parameter', 'include');

    const paths = ['sample_metadata.sample'];
    for (let k = 0; k < 5; k++) {
      const prefix = k === 0 ? '' : `${chain(k)}.`;
      paths.push(`${prefix}studies`, `${prefix}sample_metadata`, `${prefix}sample_manifest`, chain(k + 1));
    }
    expect(new Set(paths).size).toBe(21);
    expect((await call('GET', `/api/v2/samples/${all[0]}?include=${paths.slice(1).join(',')}`)).status).toBe(200);
    expectError(await call('GET', `/api/v2/samples/${all[0]}?include=${paths.join(',')}`), 400, 'invalid_parameter', 'include');
  });

  it('rejects an unknown relationship in an include path', async () => {
    for (const include of ['nonsense', 'studies.nonsense', 'sample_metadata.sample.nope', 'studies,nope']) {
      expectError(await call('GET', `/api/v2/samples/${all[0]}?include=${include}`), 400, 'invalid_include', 'include');
    }
    expectError(await call('GET', '/api/v2/barcode_printers?include=user'), 400, 'invalid_include', 'include');
  });

  it('restricts attributes and relationships with fields[type]', async () => {
    const res = await call('GET', `/api/v2/samples/${all[0]}?fields[samples]=name`);
    expect(res.body.data.attributes).toEqual({ name: 'coll-01' });
    expect(res.body.data.relationships ?? {}).toEqual({});
    const withRel = await call('GET', `/api/v2/samples/${all[0]}?fields[samples]=site_sample_id,studies&include=studies&fields[studies]=name`);
    expect(withRel.body.data.attributes).toEqual({ site_sample_id: 'odd' });
    expect(Object.keys(withRel.body.data.relationships)).toEqual(['studies']);
    for (const study of withRel.body.included) expect(Object.keys(study.attributes)).toEqual(['name']);
    const list = await call('GET', '/api/v2/barcode_printers?fields%5Bbarcode_printers%5D=name');
    for (const printer of list.body.data) expect(Object.keys(printer.attributes)).toEqual(['name']);
  });

  it('rejects an unknown field or type in fields', async () => {
    expectError(await call('GET', `/api/v2/samples/${all[0]}?fields[samples]=name,colour`), 400, 'invalid_field', 'fields[samples]');
    expectError(await call('GET', '/api/v2/samples?fields[nope]=name'), 400, 'invalid_field', 'fields[nope]');
    // Write-only attributes are never rendered, so they are no field either.
    expectError(await call('GET', '/api/v2/users?fields[users]=user_code'), 400, 'invalid_field', 'fields[users]');
  });
});

describe('related and relationship endpoints (§1.4)', () => {
  it('serves a to-many related collection', async () => {
    const res = await call('GET', `/api/v2/samples/${all[0]}/studies`);
    expect(res.body.data.map((s: Resource) => [s.type, s.id, s.attributes.name])).toEqual([
      ['studies', studyA, 'Study A'],
      ['studies', studyB, 'Study B'],
    ]);
    expect(res.body.meta.record_count).toBe(2);
    expect(pageParams(res.body.links.first)).toMatchObject({ number: '1', size: '100' });
    const filtered = await call('GET', `/api/v2/samples/${all[0]}/studies?filter[name]=Study%20B`);
    expect(idsOf(filtered)).toEqual([studyB]);
    const paged = await call('GET', `/api/v2/samples/${all[0]}/studies?page[size]=1&sort=-id`);
    expect(idsOf(paged)).toEqual([[studyA, studyB].sort(byNumber)[1]]);
    expect(pageParams(paged.body.links.next)).toMatchObject({ number: '2', size: '1' });
    expect((await call('GET', `/api/v2/samples/${all[8]}/studies`)).body.data).toEqual([]);
  });

  it('serves a to-one related resource, or null', async () => {
    const linkage = await call('GET', `/api/v2/samples/${all[0]}/relationships/sample_metadata`);
    expect(linkage.body.data).toMatchObject({ type: 'sample_metadata' });
    const related = await call('GET', `/api/v2/samples/${all[0]}/sample_metadata?include=sample`);
    expect(related.body.data).toMatchObject({ type: 'sample_metadata', id: linkage.body.data.id });
    expect(related.body.links.self).toBe(`${BASE}/samples/${all[0]}/sample_metadata`);
    expect(related.body.included.map((r: Resource) => `${r.type}:${r.id}`)).toEqual([`samples:${all[0]}`]);
    const none = await call('GET', `/api/v2/samples/${all[0]}/sample_manifest`);
    expect(none.status).toBe(200);
    expect(none.body.data).toBeNull();
  });

  it('serves relationship linkage with self and related links', async () => {
    const res = await call('GET', `/api/v2/samples/${all[0]}/relationships/studies`);
    expect(res.body).toEqual({
      data: [
        { type: 'studies', id: studyA },
        { type: 'studies', id: studyB },
      ],
      links: { self: `${BASE}/samples/${all[0]}/relationships/studies`, related: `${BASE}/samples/${all[0]}/studies` },
    });
    const empty = await call('GET', `/api/v2/samples/${all[0]}/relationships/component_samples/`);
    expect(empty.body.data).toEqual([]);
    expect((await call('GET', `/api/v2/samples/${all[0]}/relationships/sample_manifest`)).body.data).toBeNull();
  });
});

describe('default page size (§1.5)', () => {
  it('serves 100 records a page unless told otherwise', async () => {
    for (let i = all.length; i < 101; i++) {
      const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: `bulk-${i}` }) });
      expect(res.status).toBe(201);
      all.push(res.body.data.id);
    }
    all.sort(byNumber);
    const first = await call('GET', '/api/v2/samples');
    expect(idsOf(first)).toEqual(all.slice(0, 100));
    expect(first.body.meta.record_count).toBe(101);
    expect(pageParams(first.body.links.next)).toMatchObject({ number: '2', size: '100' });
    expect(pageParams(first.body.links.last)).toMatchObject({ number: '2', size: '100' });
    const second = await call('GET', first.body.links.next.slice('https://lts.test'.length));
    expect(idsOf(second)).toEqual(all.slice(100));
    expect(second.body.links.next).toBeUndefined();
  });
});
