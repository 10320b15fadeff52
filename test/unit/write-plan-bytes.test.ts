import fc from 'fast-check';
import { expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import type { AuditEntry } from '#lib/store/audit-trail.ts';
import { storedBytes } from '#lib/store/request-payload.ts';
import { opBytes, planWrite } from '#lib/store/write-plan.ts';

// A plan measures each audit entry's Put once, as it makes it (lib/store/write-plan.ts); a large write's
// stages and the plan's total read that measure. It must be what measuring the item whole would answer.
const text = fc.string({ maxLength: 12 });
const entry: fc.Arbitrary<AuditEntry> = fc.record({
  labware_id: fc.integer({ min: 1, max: 999_999_999 }),
  at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  n: fc.integer({ min: 1, max: 2 ** 48 - 1 }),
  user: fc.option(fc.record({ uuid: fc.uuid(), login: fc.option(text) })),
  api_key: fc.option(text),
  action: text,
  changes: fc.dictionary(text, fc.nat()),
  subjects: fc.array(fc.record({ type: text, id: text, attributes: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }) }), { maxLength: 3 }),
  more_subjects: fc.nat(),
});

it("measures each audit entry's item as storing it counts its bytes", () => {
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), (audit) => {
      const plan = planWrite({ created: [], updated: [], deleted: [] }, registry, { events: [], audit }, '2026-12-07T06:00:00.000Z');
      expect(plan.changes).toHaveLength(audit.length);
      for (const op of plan.changes) expect(opBytes(op)).toBe(storedBytes(op.item));
    }),
  );
});
