/**
 * A hand-written JSON:API renderer: the same document shape as the service (attributes, relationship
 * links, linkage data on included relationships, self links), from the stored item as it is, with the
 * attribute and relationship names of each type written out here.
 */
export interface Linkage {
  type: string;
  id: string;
}
type Data = Linkage | Linkage[] | null;
type Ref = { type: string; id: number };

/** Relationship names of the types the floor serves, as the service's resource definitions list them. */
export const relationshipNames: Record<string, readonly string[]> = {
  samples: ['sample_metadata', 'sample_manifest', 'studies', 'component_samples', 'poly_metadata'],
  sample_metadata: ['sample'],
  plates: [
    'purpose',
    'parents',
    'children',
    'ancestors',
    'descendants',
    'custom_metadatum_collection',
    'poly_metadata',
    'qc_files',
    'comments',
    'state_changes',
    'wells',
    'receptacles',
    'child_plates',
    'qc_results',
    'samples',
    'direct_submissions',
    'submission_pools',
    'transfers_as_destination',
  ],
  wells: [
    'plate',
    'labware',
    'aliquots',
    'requests_as_source',
    'requests_as_target',
    'upstream_assets',
    'upstream_plates',
    'upstream_tubes',
    'upstream_wells',
    'downstream_assets',
    'downstream_plates',
    'downstream_tubes',
    'downstream_wells',
    'qc_results',
    'poly_metadata',
    'transfer_requests_as_target',
    'transfer_requests_as_source',
  ],
  aliquots: ['receptacle', 'sample', 'study', 'request', 'bait_library', 'project', 'library', 'tag', 'tag2', 'poly_metadata'],
};

export const SAMPLE_ATTRIBUTES = ['name', 'site_sample_id', 'control', 'control_type'] as const;
export const METADATA_ATTRIBUTES = [
  'cohort',
  'collected_by',
  'concentration',
  'date_of_sample_collection',
  'donor_id',
  'gender',
  'phenotype',
  'sample_common_name',
  'sample_description',
  'supplier_name',
  'volume',
] as const;

export const linkage = (ref: Ref | null | undefined): Linkage | null => (ref ? { type: ref.type, id: String(ref.id) } : null);

/** Picks attributes from a stored `attrs` map, null when absent. */
export function pick(attrs: Record<string, unknown> | undefined, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = attrs?.[name] ?? null;
  return out;
}

export function resource(base: string, type: string, id: number | string, attributes: Record<string, unknown>, data: Record<string, Data> = {}) {
  const self = `${base}/api/v2/${type}/${id}`;
  const relationships: Record<string, { links: { self: string; related: string }; data?: Data }> = {};
  for (const name of relationshipNames[type] ?? []) {
    const links = { self: `${self}/relationships/${name}`, related: `${self}/${name}` };
    relationships[name] = name in data ? { links, data: data[name]! } : { links };
  }
  return { type, id: String(id), attributes, relationships, links: { self } };
}

/** The resource object of a stored sample record. */
export function sampleResource(base: string, item: Record<string, unknown>, data: Record<string, Data> = {}) {
  const attributes = pick(item.attrs as Record<string, unknown>, SAMPLE_ATTRIBUTES);
  // `sanger_sample_id`: the reference's name of `site_sample_id`, one stored value (lib/resources/samples.ts).
  return resource(base, 'samples', item.id as number, { uuid: item.uuid, ...attributes, sanger_sample_id: attributes.site_sample_id }, data);
}

/** The resource object of a stored sample_metadata record. */
export const metadataResource = (base: string, item: Record<string, unknown>) =>
  resource(base, 'sample_metadata', item.id as number, pick(item.attrs as Record<string, unknown>, METADATA_ATTRIBUTES));
