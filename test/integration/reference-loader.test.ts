import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultReferenceData } from '#lib/local/service.ts';
import { loadReferenceData, ReferenceDataError } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { call } from '../support/api.ts';
import { freshStore } from '../support/store.ts';
import { tableSnapshot } from '../support/table.ts';

/**
 * The reference-data loader's references between records (docs/reference-data.md): a relationship names
 * a record by its natural key, stored already or earlier in the same document; every reference is
 * checked before anything is written, so a bad document leaves the table as it was. Loading a document
 * again changes nothing, the default set (whose maps DynamoDB hands back in an order of its own) and the
 * example of docs/reference-data.md included; that example adds to the default set, changing none of it.
 */

beforeAll(freshStore);

/** Loads a document that must be refused; checks nothing was written and returns the message. */
async function refusedLoad(document: unknown): Promise<string> {
  const before = await tableSnapshot();
  const error = await loadReferenceData(registry, document).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReferenceDataError);
  expect(await tableSnapshot()).toEqual(before);
  return (error as Error).message;
}

const lotOf = async (lotNumber: string) =>
  (await call('GET', `/api/v2/lots?filter[lot_number]=${lotNumber}&include=lot_type.target_purpose`)).body as { data: any[]; included?: any[] };

describe('references between reference records', () => {
  it('links a lot to a lot type loaded earlier in the same document, and that type to a stored purpose', async () => {
    const report = await loadReferenceData(registry, {
      lot_types: [{ name: 'Loader Plates', target_purpose: 'stock plate', qcable_initial_state: 'pending' }],
      lots: [{ lot_number: 'LOADER-1', lot_type: 'LOADER PLATES', template: 'test i7 column' }],
    });
    expect(report).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const lot = await lotOf('LOADER-1');
    expect(lot.included?.map((r) => [r.type, r.attributes.name])).toEqual([
      ['lot_types', 'Loader Plates'],
      // A lot type's target purpose links as `purposes` (the reference's `class_name: "Purpose"`).
      ['purposes', 'Stock Plate'],
    ]);
  });

  it('loading the same document again changes nothing; a changed reference updates the record', async () => {
    const document = { lots: [{ lot_number: 'LOADER-2', lot_type: 'Tag Plates' }] };
    expect(await loadReferenceData(registry, document)).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect(await loadReferenceData(registry, document)).toEqual({ created: 0, updated: 0, unchanged: 1 });
    expect(await loadReferenceData(registry, { lots: [{ lot_number: 'LOADER-2', lot_type: 'QC Plates' }] })).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await lotOf('LOADER-2')).included?.map((r) => r.attributes.name)).toEqual(['QC Plates']);
  });

  it('refuses a reference to a record that is neither stored nor earlier in the document, writing nothing', async () => {
    const message = await refusedLoad({
      studies: [{ name: 'Written only if all is well' }],
      lots: [{ lot_number: 'LOADER-3', lot_type: 'No Such Type' }],
    });
    expect(message).toContain('lots[0].lot_type: names "No Such Type", which is no lot_types record');
    expect((await call('GET', '/api/v2/studies?filter[name]=Written%20only%20if%20all%20is%20well')).body.data).toEqual([]);
  });

  it('refuses a reference to a record that comes later in the document', async () => {
    const message = await refusedLoad({
      lots: [{ lot_number: 'LOADER-4', lot_type: 'Later Plates' }],
      lot_types: [{ name: 'Later Plates' }],
    });
    expect(message).toContain('lots[0].lot_type: names "Later Plates"');
  });

  it('refuses a missing required relationship, a malformed one, and relationships that are not loadable', async () => {
    const message = await refusedLoad({
      lots: [
        { lot_number: 'LOADER-5' },
        { lot_number: 'LOADER-6', lot_type: null },
        { lot_number: 'LOADER-7', lot_type: ['Tag Plates'] },
        { lot_number: 'LOADER-8', lot_type: 'Tag Plates', tag_layout_template: 'Test i7 column' },
        { lot_number: 'LOADER-9', lot_type: 'Tag Plates', qcables: [] },
      ],
    });
    expect(message).toContain('lots[0].lot_type: required');
    expect(message).toContain('lots[1].lot_type: required');
    expect(message).toContain('lots[2].lot_type: must be the name of a lot_types record or null (got ["Tag Plates"])');
    expect(message).toContain('lots[3].tag_layout_template: is not loadable');
    expect(message).toContain('lots[4].qcables: is not loadable');
  });

  it('checks the names an attribute gives: request types of submission templates, and every default cross-reference', async () => {
    const message = await refusedLoad({
      request_types: [{ key: 'loader_pooling', name: 'Loader pooling' }],
      submission_templates: [
        { name: 'Loader template', request_type_keys: ['LOADER_POOLING', 'library_creation'] },
        { name: 'Odd template', request_type_keys: ['loader_pooling', 'nope'] },
      ],
      tag_layout_templates: [{ name: 'Odd layout', direction: 'column', walking_by: 'wells of plate', tag_group: 'No Tags' }],
      lot_types: [{ name: 'Odd lot type', target_purpose: 'No Purpose' }],
      lots: [{ lot_number: 'LOADER-10', lot_type: 'Tag Plates', template: 'No Template' }],
    });
    expect(
      message
        .split('\n')
        .slice(1)
        .map((line) => line.trim()),
    ).toEqual([
      'submission_templates[1].request_type_keys: names "nope", which is no request_types record (stored, or earlier in this document)',
      'tag_layout_templates[0].tag_group: names "No Tags", which is no tag_groups record (stored, or earlier in this document)',
      'lot_types[0].target_purpose: names "No Purpose", which is no plate_purposes record (stored, or earlier in this document)',
      'lots[0].template: names "No Template", which is no tag_layout_templates record (stored, or earlier in this document)',
    ]);
    expect(await loadReferenceData(registry, { submission_templates: [{ name: 'Loader template', request_type_keys: ['Library_Creation'] }] })).toEqual({
      created: 1,
      updated: 0,
      unchanged: 0,
    });
  });

  it('refuses an unknown initial qcable state', async () => {
    const message = await refusedLoad({ lot_types: [{ name: 'Odd Plates', qcable_initial_state: 'ready' }] });
    expect(message).toContain('lot_types[0].qcable_initial_state');
  });
});

describe('loading again', () => {
  const records = (document: Record<string, unknown[]>) => Object.values(document).reduce((sum, list) => sum + list.length, 0);

  it('changes nothing when the default set is loaded over itself', async () => {
    const defaults = defaultReferenceData() as Record<string, unknown[]>;
    // The fresh store holds the default set already (copied from a load of it).
    const before = await tableSnapshot();
    expect(await loadReferenceData(registry, defaults)).toEqual({ created: 0, updated: 0, unchanged: records(defaults) });
    expect(await tableSnapshot()).toEqual(before);
  });

  it('loads the example of docs/reference-data.md beside the default set, and again without a change', async () => {
    const page = readFileSync(new URL('../../docs/reference-data.md', import.meta.url), 'utf8');
    const text = page.match(/^```json\n([\s\S]*?)^```$/m)![1]!;
    // JSON.parse keeps the last of a key given twice: each type once, or a list is silently lost.
    const types = [...text.matchAll(/^ {2}"([a-z_]+)":/gm)].map((m) => m[1]);
    expect(types.length).toBeGreaterThan(10);
    expect(new Set(types).size).toBe(types.length);
    const example = JSON.parse(text) as Record<string, unknown[]>;
    expect(await loadReferenceData(registry, example)).toEqual({ created: records(example), updated: 0, unchanged: 0 });
    expect(await loadReferenceData(registry, example)).toEqual({ created: 0, updated: 0, unchanged: records(example) });
    // The lab day's lot still tags with its own template.
    const lot = (await call('GET', '/api/v2/lots?filter[lot_number]=LOT-0001&include=template')).body as { included: any[] };
    expect(lot.included.map((r) => r.attributes.name)).toEqual(['Test i7 column']);
  });
});
