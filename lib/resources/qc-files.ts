import * as z from '#lib/zod.ts';
import { contentTypeOf, packContents, QC_FILENAME_MAX, unpackContents } from '#lib/domain/qc-files.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { MAX_BODY_BYTES } from '#lib/jsonapi/request-checks.ts';
import { aggregateIndex, attr, defineResource, timestamps, toOne, uuidAttribute, uuidFilter } from '#lib/jsonapi/resource.ts';
import { accepted, attributeAt } from '#lib/jsonapi/problems.ts';

/**
 * QC files (contract §6, the reference's QcFile): a file attached to labware, as Limber uploads it
 * (`contents` and `filename`, a `labware` relationship) and lists it (the labware's `qc_files`, with
 * `fields[qc_files]=filename,size,uuid,created_at`) and downloads it (`filter[uuid]`, reading `contents`).
 * The contents are stored compressed in the file's record (lib/domain/qc-files.ts). They are rendered
 * through `load`, so the file's event carries no copy of them (a file may be 1 MiB of text): clients read
 * the file.
 */
export const qcFiles = defineResource({
  type: 'qc_files',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    filename: attr('WO', () => z.string().check(z.minLength(1), z.maxLength(QC_FILENAME_MAX)), { required: true }),
    contents: attr('WO', () => z.string(), {
      required: true,
      // A whole file: as long as a request body may be (the stored form has its own budget, lib/domain/qc-files.ts).
      maxStringLength: MAX_BODY_BYTES,
      transient: true,
      load: async (_ctx, records) => new Map(records.map((r) => [r, unpackContents(String(r.attrs.packed_contents))])),
      notInEvents: true,
    }),
    size: attr('R', () => z.number().check(z.int(), z.gte(0))),
    content_type: attr('R', () => z.string()),
    ...timestamps,
  },
  relationships: { labware: toOne('labware', 'WO', { required: true, linkedAs: 'labware' }) },
  // Each labware lists its files (`qc_files`, one Query per labware).
  indexes: { labware: aggregateIndex('labware') },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const filename = input.attributes.filename!;
    const { packed, size } = accepted(packContents(input.attributes.contents!), attributeAt);
    return ctx.uow.create('qc_files', {
      attrs: { filename, size, content_type: contentTypeOf(filename), packed_contents: packed },
      rels: { labware: refOf(input.relationships.labware!) },
    });
  },
});
