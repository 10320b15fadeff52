/**
 * The reference's API v2 directory (sanger/sequencescape `app/resources/api/v2/*.rb` and `sapio/*.rb`, at
 * 6fe6cb4e, 2026-08-07), kept here as data: docs/types.md marks each type served or not from it and the
 * registry (lib/jsonapi/types-table.ts), without reading the reference at run time. A file that is no type
 * says why (`notType`); a type this service does not serve says why (`notServed`). A reason left on a
 * type that is served is stale, and test/unit/types-table.test.ts fails.
 */
export interface ReferenceResourceFile {
  /** The file, under `app/resources/api/v2/`. */
  file: string;
  /** Its JSON:API type (Sapio's under `/api/v2/sapio/`). */
  type?: string;
  notType?: string;
  notServed?: string;
  /** What a served type does not do that the reference's does, and why. */
  servedNote?: string;
}

/** Why the Sapio study search is not served (the seven files under `sapio/`). */
const SAPIO =
  "Sapio's study search (`/api/v2/sapio/studies`, index and show only, with its study types, data release study types, programs, reference genomes and users): it reads the reference's own study records, which here hold a name and a faculty sponsor only; no client of this service uses it";

const SAPIO_PART = "part of Sapio's study search (see `sapio/study_resource.rb`)";

export const REFERENCE_RESOURCE_FILES: readonly ReferenceResourceFile[] = [
  { file: 'aliquot_resource.rb', type: 'aliquots' },
  { file: 'asset_audit_resource.rb', type: 'asset_audits' },
  {
    file: 'asset_resource.rb',
    type: 'assets',
    notServed:
      "the reference's older polymorphic type for labware and receptacles together (`/api/v2/assets`); served here as `labware` and `receptacles`; no client requests `assets` (Limber's `Sequencescape::Api::V2::Asset` is a class its client library gives polymorphic relationships' records, never fetched from `/api/v2/assets`)",
  },
  { file: 'bait_library_layout_resource.rb', type: 'bait_library_layouts' },
  { file: 'barcode_printer_resource.rb', type: 'barcode_printers' },
  { file: 'base_resource.rb', notType: "the base class of every resource (its creatable and updatable fields' rules), no type of its own" },
  { file: 'bulk_transfer_resource.rb', type: 'bulk_transfers' },
  { file: 'comment_resource.rb', type: 'comments' },
  { file: 'custom_metadatum_collection_resource.rb', type: 'custom_metadatum_collections' },
  { file: 'faculty_sponsor_resource.rb', type: 'faculty_sponsors', servedNote: 'read only, reference data' },
  {
    file: 'fragment_resource.rb',
    type: 'fragments',
    servedNote: 'read only; the reference no longer makes fragments (legacy gel fragments), nor does this service, so the collection is empty',
  },
  { file: 'labware_resource.rb', type: 'labware' },
  {
    file: 'lane_resource.rb',
    type: 'lanes',
    servedNote:
      'read only; no lanes are made here (the reference makes them when a sequencing batch is released from its web pipelines, which this service does not run), so the collection is empty',
  },
  { file: 'lot_resource.rb', type: 'lots' },
  { file: 'lot_type_resource.rb', type: 'lot_types' },
  { file: 'order_resource.rb', type: 'orders' },
  {
    file: 'pick_list_resource.rb',
    type: 'pick_lists',
    servedNote:
      "POST builds the pick list's submission of `cherrypick` requests (one order per study and project) in its own write, so it is `built` when it answers, `asynchronous` or not; there is no CherrypickPipeline here and so no batches: `links` are the pick list's page and its submission's",
  },
  { file: 'plate_conversion_resource.rb', type: 'plate_conversions' },
  { file: 'plate_creation_resource.rb', type: 'plate_creations' },
  { file: 'plate_purpose_resource.rb', type: 'plate_purposes' },
  { file: 'plate_resource.rb', type: 'plates' },
  { file: 'poly_metadatum_resource.rb', type: 'poly_metadata' },
  { file: 'pooled_plate_creation_resource.rb', type: 'pooled_plate_creations' },
  { file: 'pre_capture_pool_resource.rb', type: 'pre_capture_pools' },
  { file: 'primer_panel_resource.rb', type: 'primer_panels' },
  { file: 'project_resource.rb', type: 'projects' },
  { file: 'purpose_resource.rb', type: 'purposes' },
  { file: 'qc_assay_resource.rb', type: 'qc_assays' },
  { file: 'qc_file_resource.rb', type: 'qc_files' },
  { file: 'qc_result_resource.rb', type: 'qc_results' },
  { file: 'qcable_creator_resource.rb', type: 'qcable_creators' },
  { file: 'qcable_resource.rb', type: 'qcables' },
  { file: 'racked_tube_resource.rb', type: 'racked_tubes' },
  { file: 'receptacle_resource.rb', type: 'receptacles' },
  { file: 'request_metadata_resource.rb', type: 'request_metadata' },
  { file: 'request_resource.rb', type: 'requests' },
  { file: 'request_type_resource.rb', type: 'request_types' },
  {
    file: 'sample_manifest_resource.rb',
    type: 'sample_manifests',
    servedNote: 'read only, reference data (`npm run admin -- load`): the reference makes manifests in its web pages; samples link theirs',
  },
  { file: 'sample_metadata_resource.rb', type: 'sample_metadata' },
  { file: 'sample_resource.rb', type: 'samples' },
  { file: 'sapio/data_release_study_type_resource.rb', type: 'sapio/data_release_study_types', notServed: SAPIO_PART },
  { file: 'sapio/errors.rb', notType: "the Sapio study search's error classes" },
  { file: 'sapio/program_resource.rb', type: 'sapio/programs', notServed: SAPIO_PART },
  { file: 'sapio/reference_genome_resource.rb', type: 'sapio/reference_genomes', notServed: SAPIO_PART },
  { file: 'sapio/study_metadata_resource.rb', type: 'sapio/study_metadata', notServed: SAPIO_PART },
  { file: 'sapio/study_resource.rb', type: 'sapio/studies', notServed: SAPIO },
  { file: 'sapio/study_search_query.rb', notType: "the Sapio study search's query (a module of `sapio/studies`)" },
  { file: 'sapio/study_type_resource.rb', type: 'sapio/study_types', notServed: SAPIO_PART },
  { file: 'sapio/user_resource.rb', type: 'sapio/users', notServed: SAPIO_PART },
  { file: 'specific_tube_creation_resource.rb', type: 'specific_tube_creations' },
  { file: 'specific_tube_rack_creation_resource.rb', type: 'specific_tube_rack_creations' },
  { file: 'state_change_resource.rb', type: 'state_changes' },
  {
    file: 'study_metadata_resource.rb',
    type: 'study_metadata',
    servedNote: "read only, reference data: found by its study's name when loaded; renders its faculty sponsor",
  },
  { file: 'study_resource.rb', type: 'studies' },
  { file: 'submission_pool_resource.rb', type: 'submission_pools' },
  { file: 'submission_resource.rb', type: 'submissions' },
  { file: 'submission_template_resource.rb', type: 'submission_templates' },
  { file: 'tag_group_adapter_type_resource.rb', type: 'tag_group_adapter_types' },
  { file: 'tag_group_resource.rb', type: 'tag_groups' },
  { file: 'tag_layout_resource.rb', type: 'tag_layouts' },
  { file: 'tag_layout_template_resource.rb', type: 'tag_layout_templates' },
  { file: 'tag_resource.rb', type: 'tags' },
  { file: 'tag_set_resource.rb', type: 'tag_sets' },
  { file: 'template_resource.rb', notType: 'an abstract resource, no type of its own' },
  { file: 'transfer_request_collection_resource.rb', type: 'transfer_request_collections' },
  { file: 'transfer_request_resource.rb', type: 'transfer_requests' },
  { file: 'transfer_resource.rb', type: 'transfers' },
  { file: 'transfer_template_resource.rb', type: 'transfer_templates' },
  { file: 'tube_from_plate_creation_resource.rb', type: 'tube_from_plate_creations' },
  { file: 'tube_from_tube_creation_resource.rb', type: 'tube_from_tube_creations' },
  { file: 'tube_purpose_resource.rb', type: 'tube_purposes' },
  { file: 'tube_rack_purpose_resource.rb', type: 'tube_rack_purposes' },
  { file: 'tube_rack_resource.rb', type: 'tube_racks' },
  { file: 'tube_rack_status_resource.rb', type: 'tube_rack_statuses' },
  { file: 'tube_resource.rb', type: 'tubes' },
  { file: 'user_resource.rb', type: 'users' },
  { file: 'volume_update_resource.rb', type: 'volume_updates' },
  { file: 'well_resource.rb', type: 'wells' },
  { file: 'work_completion_resource.rb', type: 'work_completions' },
  {
    file: 'work_order_resource.rb',
    type: 'work_orders',
    servedNote:
      'made as a submission of `traction_grid_ion` requests is built, one per source receptacle over its requests; PATCH `state` and `at_risk` change each of its requests too',
  },
];
