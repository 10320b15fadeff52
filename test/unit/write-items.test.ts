import fc from 'fast-check';
import { expect, it } from 'vitest';
import { store } from '#lib/store/entities.ts';
import { termItemKey } from '#lib/store/records.ts';
import { recordPut, requestPut, termPut } from '#lib/store/write-items.ts';

// The write path builds its Put items itself (lib/store/write-items.ts); they must be exactly what
// ElectroDB builds for the same entity, or reads through ElectroDB would miss what was written.
const time = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const id = fc.integer({ min: 1, max: 999_999_999_999 });
const text = fc.string({ minLength: 1, maxLength: 12 });
const json = fc.jsonValue({ maxDepth: 3 });
const record = fc.record({
  family: fc.constantFrom('samples', 'labware', 'custom_metadatum_collections'),
  id,
  type: fc.constantFrom('samples', 'plates', 'tubes'),
  uuid: fc.uuid(),
  createdAt: time,
  updatedAt: time,
  version: fc.integer({ min: 1, max: 1000 }),
  attrs: fc.dictionary(text, json, { maxKeys: 4 }),
  rels: fc.dictionary(text, fc.oneof(fc.constant(null), fc.record({ type: text, id }), fc.array(fc.record({ type: text, id }), { maxLength: 3 }))),
});
// Lookup slots are set with their sort values or not at all (write-plan.ts, lookupAttributes).
const lookups = fc.record(
  {
    one: fc.record({ lookup1: text.map((v) => `labware.barcode#${v}`) }),
    two: fc.record({ lookup2: text.map((v) => `plates.purpose#${v}`) }),
  },
  { requiredKeys: [] },
);

it('record Puts, new and replacing a version, are the ones ElectroDB builds', () => {
  fc.assert(
    fc.property(record, lookups, (r, slots) => {
      const item = {
        ...r,
        ...(slots.one ? { lookup1: slots.one.lookup1, lookup1Id: r.id } : {}),
        ...(slots.two ? { lookup2: slots.two.lookup2, lookup2Id: r.id, lookup2UpdatedAt: r.updatedAt } : {}),
      };
      const { record: entity } = store().entities;
      expect(recordPut(item, 'new')).toEqual(entity.create(item).params());
      const version = r.version - 1;
      expect(recordPut(item, { version })).toEqual(
        entity
          .put(item)
          // The version read, and no mark of a larger write (lib/store/large-write.ts) on the record.
          .where((a, op) => `${op.eq(a.version, version)} AND ${op.notExists(a.tx)}`)
          .params(),
      );
    }),
    { numRuns: 300 },
  );
});

it('index entry Puts, unique and listed, are the ones ElectroDB builds', () => {
  fc.assert(
    fc.property(text, text, fc.oneof(fc.constant('-'), text), id, (scope, value, ref, n) => {
      const term = { scope, value, ref, family: 'samples', type: 'samples', id: n };
      expect(termPut(term, true)).toEqual(store().entities.term.create(term).params());
      expect(termPut(term, false)).toEqual(store().entities.term.put(term).params());
    }),
  );
});

it('request Puts, with each form of payload, are the ones ElectroDB builds', () => {
  const base = { key: 'auto:5e0d3c1a', committedAt: '2026-11-27T03:00:00.000Z', ttl: 1_800_000_000 };
  const forms = [
    { events: [{ id: 'e', type: 'samples.created', data: { a: 1 } }] },
    { events: [], response: { status: 201, headers: { Location: 'x' }, body: '{}' }, requestHash: 'abc' },
    { payload: new Uint8Array([1, 2, 3]) },
    { chunks: { set: 's', count: 2 } },
  ];
  for (const form of forms)
    expect(requestPut({ ...base, ...form })).toEqual(
      store()
        .entities.request.create({ ...base, ...form })
        .params(),
    );
});

it("an index entry's key, as reads by key build it, is the one ElectroDB reads", () => {
  fc.assert(
    fc.property(text, text, fc.oneof(fc.constant('-'), text), (scope, value, ref) => {
      expect(termItemKey(scope, value, ref)).toEqual(store().entities.term.get({ scope, value, ref }).params().Key);
    }),
  );
});
