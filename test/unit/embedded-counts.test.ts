import fc from 'fast-check';
import { expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/** A labware record of `type` holding what the arbitraries give: aliquots, QC results and transfer requests per receptacle, racked tubes. */
function labware(type: string, receptacles: { aliquots: number; qc: number; transfers: number }[], ownQc: number, racked: number): StoredRecord {
  let n = 0;
  const qc = (count: number) =>
    Array.from({ length: count }, () => ({
      n: ++n,
      assay: 1,
      key: 'k',
      value: '1',
      units: 'u',
      cv: null,
      assay_type: null,
      assay_version: null,
      created_at: '',
    }));
  return {
    family: 'labware',
    id: 7,
    type,
    uuid: 'f71f6045-4b75-44cf-996c-70cd12460000',
    createdAt: '',
    updatedAt: '',
    version: 1,
    attrs: {
      size: type === 'plates' ? 96 : type === 'tube_racks' ? 48 : undefined,
      receptacles: receptacles.map((r) => ({
        state: 'pending',
        aliquots: Array.from({ length: r.aliquots }, () => ({ n: ++n, sample: 1, study: null, tag: null, tag2: null, library_type: null })),
        ...(r.qc > 0 ? { qc_results: qc(r.qc) } : {}),
        ...(r.transfers > 0 ? { transfers: Array.from({ length: r.transfers }, () => ({ n: ++n, source: 1001, state: 'pending' })) } : {}),
      })),
      ...(ownQc > 0 ? { qc_results: qc(ownQc) } : {}),
      racked: Array.from({ length: racked }, (_, i) => ({ coordinate: `A${i + 1}`, tube: 100 + i })),
    },
    rels: {},
  };
}

it("counts each type's embedded records as many as it would build (counts are kept without building them)", () => {
  const embedded = registry.types.map((type) => registry.require(type)).filter((def) => def.embedded);
  expect(embedded.map((def) => def.type).sort()).toEqual([
    'aliquots',
    'qc_results',
    'racked_tubes',
    'receptacles',
    'requests',
    'submission_pools',
    'transfer_requests',
    'wells',
  ]);
  fc.assert(
    fc.property(
      fc.constantFrom('plates', 'tubes', 'tube_racks'),
      fc.array(fc.record({ aliquots: fc.nat(3), qc: fc.nat(2), transfers: fc.nat(2) }), { maxLength: 12 }),
      fc.nat(2),
      fc.nat(6),
      (type, receptacles, ownQc, racked) => {
        const parent = labware(type, receptacles, ownQc, racked);
        // Requests are in request books, not labware: test/unit/request-books.test.ts counts them.
        for (const def of embedded.filter((d) => d.embedded!.parentTypes.includes(type))) {
          expect(def.embedded!.count(parent), `${def.type} in ${type}`).toBe(def.embedded!.extract(parent).length);
        }
      },
    ),
  );
});
