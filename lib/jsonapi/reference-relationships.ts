/**
 * How the reference (sanger/sequencescape, app/resources/api/v2/, at commit 6fe6cb4e8371) declares each relationship of
 * its resources: a resource's own `has_one`/`has_many` line, else the one of the shared behaviour it includes
 * (shared_behaviour/labware.rb, receptacle.rb). Data read off those files for docs/relationships.md and its
 * test (contract §7.4: where the interface does not type a relationship, this decides its type).
 */
export const REFERENCE_RESOURCES: Record<string, { file: string; relationships: Record<string, string> }> = {
  aliquots: {
    file: 'aliquot_resource.rb',
    relationships: {
      study: 'has_one :study',
      project: 'has_one :project',
      sample: 'has_one :sample',
      request: 'has_one :request',
      receptacle: 'has_one :receptacle',
      tag: 'has_one :tag',
      tag2: 'has_one :tag2',
      library: 'has_one :library',
      poly_metadata: 'has_many :poly_metadata',
    },
  },
  asset_audits: {
    file: 'asset_audit_resource.rb',
    relationships: {},
  },
  assets: {
    file: 'asset_resource.rb',
    relationships: {
      custom_metadatum_collection: 'has_one :custom_metadatum_collection',
      comments: 'has_many :comments, readonly: true',
    },
  },
  bait_library_layouts: {
    file: 'bait_library_layout_resource.rb',
    relationships: {
      user: 'has_one :user',
      plate: 'has_one :plate',
    },
  },
  barcode_printers: {
    file: 'barcode_printer_resource.rb',
    relationships: {},
  },
  bulk_transfers: {
    file: 'bulk_transfer_resource.rb',
    relationships: {
      transfers: 'has_many :transfers, readonly: true',
      user: 'has_one :user',
    },
  },
  comments: {
    file: 'comment_resource.rb',
    relationships: {
      user: 'has_one :user',
      commentable: 'has_one :commentable, polymorphic: true',
    },
  },
  custom_metadatum_collections: {
    file: 'custom_metadatum_collection_resource.rb',
    relationships: {},
  },
  faculty_sponsors: {
    file: 'faculty_sponsor_resource.rb',
    relationships: {},
  },
  fragments: {
    file: 'fragment_resource.rb',
    relationships: {},
  },
  labware: {
    file: 'labware_resource.rb',
    relationships: {
      purpose: 'has_one :purpose, write_once: true, foreign_key: :plate_purpose_id, class_name: "Purpose"',
      custom_metadatum_collection: 'has_one :custom_metadatum_collection, foreign_key_on: :related',
      samples: 'has_many :samples, write_once: true',
      studies: 'has_many :studies, write_once: true',
      projects: 'has_many :projects, write_once: true',
      comments: 'has_many :comments, readonly: true',
      qc_files: 'has_many :qc_files, readonly: true',
      receptacles: 'has_many :receptacles, readonly: true, polymorphic: true',
      ancestors: 'has_many :ancestors, readonly: true, polymorphic: true',
      descendants: 'has_many :descendants, readonly: true, polymorphic: true',
      parents: 'has_many :parents, readonly: true, polymorphic: true',
      children: 'has_many :children, readonly: true, polymorphic: true',
      child_plates: 'has_many :child_plates, readonly: true',
      child_tubes: 'has_many :child_tubes, readonly: true',
      direct_submissions: 'has_many :direct_submissions, readonly: true',
      state_changes: 'has_many :state_changes, readonly: true',
      poly_metadata: 'has_many :poly_metadata, as: :metadatable, class_name: "PolyMetadatum"',
    },
  },
  lanes: {
    file: 'lane_resource.rb',
    relationships: {
      samples: 'has_many :samples',
      studies: 'has_many :studies',
      projects: 'has_many :projects',
    },
  },
  lot_types: {
    file: 'lot_type_resource.rb',
    relationships: {
      target_purpose: 'has_one :target_purpose, write_once: true, class_name: "Purpose"',
      lots: 'has_many :lots',
    },
  },
  lots: {
    file: 'lot_resource.rb',
    relationships: {
      lot_type: 'has_one :lot_type',
      user: 'has_one :user',
      template: 'has_one :template, polymorphic: true',
      tag_layout_template: 'has_one :tag_layout_template, eager_load_on_include: false',
      qcables: 'has_many :qcables',
    },
  },
  orders: {
    file: 'order_resource.rb',
    relationships: {
      project: 'has_one :project, readonly: true',
      study: 'has_one :study, readonly: true',
      user: 'has_one :user, readonly: true',
    },
  },
  pick_lists: {
    file: 'pick_list_resource.rb',
    relationships: {},
  },
  plate_conversions: {
    file: 'plate_conversion_resource.rb',
    relationships: {
      parent: 'has_one :parent, class_name: "Plate"',
      purpose: 'has_one :purpose, class_name: "PlatePurpose"',
      target: 'has_one :target, class_name: "Plate"',
      user: 'has_one :user',
    },
  },
  plate_creations: {
    file: 'plate_creation_resource.rb',
    relationships: {
      child: 'has_one :child, class_name: "Plate", readonly: true',
      child_purpose: 'has_one :child_purpose, class_name: "PlatePurpose"',
      parent: 'has_one :parent, class_name: "Plate"',
      user: 'has_one :user',
    },
  },
  plate_purposes: {
    file: 'plate_purpose_resource.rb',
    relationships: {},
  },
  plates: {
    file: 'plate_resource.rb',
    relationships: {
      purpose: 'has_one :purpose, write_once: true, foreign_key: :plate_purpose_id, class_name: "Purpose"',
      custom_metadatum_collection: 'has_one :custom_metadatum_collection, foreign_key_on: :related',
      samples: 'has_many :samples, write_once: true',
      studies: 'has_many :studies, write_once: true',
      projects: 'has_many :projects, write_once: true',
      comments: 'has_many :comments, readonly: true',
      qc_files: 'has_many :qc_files, readonly: true',
      receptacles: 'has_many :receptacles, readonly: true, polymorphic: true',
      ancestors: 'has_many :ancestors, readonly: true, polymorphic: true',
      descendants: 'has_many :descendants, readonly: true, polymorphic: true',
      parents: 'has_many :parents, readonly: true, polymorphic: true',
      children: 'has_many :children, readonly: true, polymorphic: true',
      child_plates: 'has_many :child_plates, readonly: true',
      child_tubes: 'has_many :child_tubes, readonly: true',
      direct_submissions: 'has_many :direct_submissions, readonly: true',
      state_changes: 'has_many :state_changes, readonly: true',
      poly_metadata: 'has_many :poly_metadata, as: :metadatable, class_name: "PolyMetadatum"',
      submission_pools: 'has_many :submission_pools, readonly: true',
      transfers_as_destination: 'has_many :transfers_as_destination, readonly: true',
      wells: 'has_many :wells, write_once: true',
    },
  },
  poly_metadata: {
    file: 'poly_metadatum_resource.rb',
    relationships: {
      metadatable: 'has_one :metadatable, polymorphic: true',
    },
  },
  pooled_plate_creations: {
    file: 'pooled_plate_creation_resource.rb',
    relationships: {
      child: 'has_one :child, class_name: "Plate", readonly: true',
      parents: 'has_many :parents, class_name: "Labware"',
      user: 'has_one :user',
    },
  },
  pre_capture_pools: {
    file: 'pre_capture_pool_resource.rb',
    relationships: {},
  },
  primer_panels: {
    file: 'primer_panel_resource.rb',
    relationships: {},
  },
  projects: {
    file: 'project_resource.rb',
    relationships: {},
  },
  purposes: {
    file: 'purpose_resource.rb',
    relationships: {},
  },
  qc_assays: {
    file: 'qc_assay_resource.rb',
    relationships: {
      qc_results: 'has_many :qc_results',
    },
  },
  qc_files: {
    file: 'qc_file_resource.rb',
    relationships: {
      labware: 'has_one :labware, relation_name: :asset, foreign_key: :asset_id, write_once: true',
    },
  },
  qc_results: {
    file: 'qc_result_resource.rb',
    relationships: {
      asset: 'has_one :asset',
    },
  },
  qcable_creators: {
    file: 'qcable_creator_resource.rb',
    relationships: {
      lot: 'has_one :lot',
      user: 'has_one :user',
      qcables: 'has_many :qcables, readonly: true',
    },
  },
  qcables: {
    file: 'qcable_resource.rb',
    relationships: {
      asset: 'has_one :asset',
      labware: 'has_one :labware, relation_name: "asset", foreign_key: :asset_id',
      lot: 'has_one :lot',
    },
  },
  racked_tubes: {
    file: 'racked_tube_resource.rb',
    relationships: {
      tube: 'has_one :tube',
      tube_rack: 'has_one :tube_rack',
    },
  },
  receptacles: {
    file: 'receptacle_resource.rb',
    relationships: {
      samples: 'has_many :samples, readonly: true',
      studies: 'has_many :studies, write_once: true',
      projects: 'has_many :projects, write_once: true',
      requests_as_source: 'has_many :requests_as_source, readonly: true',
      requests_as_target: 'has_many :requests_as_target, readonly: true',
      qc_results: 'has_many :qc_results, readonly: true',
      aliquots: 'has_many :aliquots, readonly: true',
      downstream_assets: 'has_many :downstream_assets, readonly: true, polymorphic: true',
      downstream_wells: 'has_many :downstream_wells, readonly: true',
      downstream_plates: 'has_many :downstream_plates, readonly: true',
      downstream_tubes: 'has_many :downstream_tubes, readonly: true',
      upstream_assets: 'has_many :upstream_assets, readonly: true, polymorphic: true',
      upstream_wells: 'has_many :upstream_wells, readonly: true',
      upstream_plates: 'has_many :upstream_plates, readonly: true',
      upstream_tubes: 'has_many :upstream_tubes, readonly: true',
      transfer_requests_as_source: 'has_many :transfer_requests_as_source, readonly: true',
      transfer_requests_as_target: 'has_many :transfer_requests_as_target, readonly: true',
      labware: 'has_one :labware, write_once: true',
    },
  },
  request_metadata: {
    file: 'request_metadata_resource.rb',
    relationships: {
      request: 'has_one :request',
    },
  },
  request_types: {
    file: 'request_type_resource.rb',
    relationships: {
      requests: 'has_many :requests',
    },
  },
  requests: {
    file: 'request_resource.rb',
    relationships: {
      submission: 'has_one :submission, always_include_linkage_data: true',
      order: 'has_one :order, always_include_linkage_data: true',
      request_type: 'has_one :request_type',
      primer_panel: 'has_one :primer_panel, readonly: true',
      pre_capture_pool: 'has_one :pre_capture_pool, readonly: true',
      poly_metadata: 'has_many :poly_metadata, as: :metadatable, class_name: "PolyMetadatum"',
      request_metadata: 'has_one :request_metadata, class_name: "RequestMetadata", foreign_key_on: :related',
    },
  },
  sample_manifests: {
    file: 'sample_manifest_resource.rb',
    relationships: {},
  },
  sample_metadata: {
    file: 'sample_metadata_resource.rb',
    relationships: {},
  },
  samples: {
    file: 'sample_resource.rb',
    relationships: {
      sample_metadata: 'has_one :sample_metadata, class_name: "SampleMetadata", foreign_key_on: :related',
      sample_manifest: 'has_one :sample_manifest',
      studies: 'has_many :studies',
      component_samples: 'has_many :component_samples',
    },
  },
  specific_tube_creations: {
    file: 'specific_tube_creation_resource.rb',
    relationships: {
      children: 'has_many :children, class_name: "Tube", readonly: true',
      parents: 'has_many :parents, class_name: "Labware"',
      user: 'has_one :user',
    },
  },
  specific_tube_rack_creations: {
    file: 'specific_tube_rack_creation_resource.rb',
    relationships: {
      children: 'has_many :children, class_name: "TubeRack"',
      parents: 'has_many :parents, class_name: "Labware"',
      user: 'has_one :user',
    },
  },
  state_changes: {
    file: 'state_change_resource.rb',
    relationships: {
      user: 'has_one :user',
      target: 'has_one :target, class_name: "Labware"',
    },
  },
  studies: {
    file: 'study_resource.rb',
    relationships: {
      poly_metadata: 'has_many :poly_metadata, as: :metadatable, class_name: "PolyMetadatum"',
      study_metadata: 'has_one :study_metadata, class_name: "StudyMetadata", foreign_key_on: :related',
    },
  },
  study_metadata: {
    file: 'study_metadata_resource.rb',
    relationships: {
      faculty_sponsor: 'has_one :faculty_sponsor, foreign_key_on: :related, readonly: true',
    },
  },
  submission_pools: {
    file: 'submission_pool_resource.rb',
    relationships: {
      tag_layout_templates: 'has_many :tag_layout_templates, readonly: true',
    },
  },
  submission_templates: {
    file: 'submission_template_resource.rb',
    relationships: {},
  },
  submissions: {
    file: 'submission_resource.rb',
    relationships: {
      user: 'has_one :user, class_name: "User"',
      orders: 'has_many :orders, class_name: "Order"',
    },
  },
  tag_group_adapter_types: {
    file: 'tag_group_adapter_type_resource.rb',
    relationships: {
      tag_groups: 'has_many :tag_groups, write_once: true, class_name: "TagGroup"',
    },
  },
  tag_groups: {
    file: 'tag_group_resource.rb',
    relationships: {
      tag_group_adapter_type: 'has_one :tag_group_adapter_type,',
    },
  },
  tag_layout_templates: {
    file: 'tag_layout_template_resource.rb',
    relationships: {
      tag_group: 'has_one :tag_group, readonly: true',
      tag2_group: 'has_one :tag2_group, class_name: "TagGroup", readonly: true',
    },
  },
  tag_layouts: {
    file: 'tag_layout_resource.rb',
    relationships: {
      plate: 'has_one :plate',
      tag_group: 'has_one :tag_group',
      tag2_group: 'has_one :tag2_group, class_name: "TagGroup"',
      user: 'has_one :user',
    },
  },
  tag_sets: {
    file: 'tag_set_resource.rb',
    relationships: {
      tag_group: 'has_one :tag_group, readonly: true',
      tag2_group: 'has_one :tag2_group, readonly: true',
    },
  },
  tags: {
    file: 'tag_resource.rb',
    relationships: {
      tag_group: 'has_one :tag_group',
    },
  },
  templates: {
    file: 'template_resource.rb',
    relationships: {},
  },
  transfer_request_collections: {
    file: 'transfer_request_collection_resource.rb',
    relationships: {
      target_tubes: 'has_many :target_tubes, class_name: "Tube", readonly: true',
      transfer_requests: 'has_many :transfer_requests, readonly: true',
      user: 'has_one :user',
    },
  },
  transfer_requests: {
    file: 'transfer_request_resource.rb',
    relationships: {
      source_asset: 'has_one :source_asset, relation_name: :asset, foreign_key: :asset_id, class_name: "Receptacle", readonly: true',
      submission: 'has_one :submission, foreign_key: :submission_id, class_name: "Submission", readonly: true',
      target_asset: 'has_one :target_asset, foreign_key: :target_asset_id, class_name: "Receptacle", readonly: true',
    },
  },
  transfer_templates: {
    file: 'transfer_template_resource.rb',
    relationships: {},
  },
  transfers: {
    file: 'transfer_resource.rb',
    relationships: {
      destination: 'has_one :destination',
      source: 'has_one :source, class_name: "Labware"',
      user: 'has_one :user',
    },
  },
  tube_from_plate_creations: {
    file: 'tube_from_plate_creation_resource.rb',
    relationships: {
      child: 'has_one :child, class_name: "Tube", readonly: true',
      child_purpose: 'has_one :child_purpose, class_name: "TubePurpose"',
      parent: 'has_one :parent, class_name: "Plate"',
      user: 'has_one :user, write_once: true',
    },
  },
  tube_from_tube_creations: {
    file: 'tube_from_tube_creation_resource.rb',
    relationships: {
      child: 'has_one :child, class_name: "Tube", readonly: true',
      child_purpose: 'has_one :child_purpose, class_name: "TubePurpose"',
      parent: 'has_one :parent, class_name: "Tube"',
      user: 'has_one :user, write_once: true',
    },
  },
  tube_purposes: {
    file: 'tube_purpose_resource.rb',
    relationships: {},
  },
  tube_rack_purposes: {
    file: 'tube_rack_purpose_resource.rb',
    relationships: {},
  },
  tube_rack_statuses: {
    file: 'tube_rack_status_resource.rb',
    relationships: {},
  },
  tube_racks: {
    file: 'tube_rack_resource.rb',
    relationships: {
      comments: 'has_many :comments, readonly: true',
      racked_tubes: 'has_many :racked_tubes',
      purpose: 'has_one :purpose, foreign_key: :plate_purpose_id, class_name: "TubeRackPurpose"',
      parents: 'has_many :parents, readonly: true, polymorphic: true',
      state_changes: 'has_many :state_changes, readonly: true',
      custom_metadatum_collection: 'has_one :custom_metadatum_collection, foreign_key_on: :related',
      ancestors: 'has_many :ancestors, readonly: true, polymorphic: true',
      tube_receptacles: 'has_many :tube_receptacles, through: :tubes, source: :receptacle',
    },
  },
  tubes: {
    file: 'tube_resource.rb',
    relationships: {
      purpose: 'has_one :purpose, write_once: true, foreign_key: :plate_purpose_id, class_name: "Purpose"',
      custom_metadatum_collection: 'has_one :custom_metadatum_collection, foreign_key_on: :related',
      samples: 'has_many :samples, write_once: true',
      studies: 'has_many :studies, write_once: true',
      projects: 'has_many :projects, write_once: true',
      comments: 'has_many :comments, readonly: true',
      qc_files: 'has_many :qc_files, readonly: true',
      receptacles: 'has_many :receptacles, readonly: true, polymorphic: true',
      ancestors: 'has_many :ancestors, readonly: true, polymorphic: true',
      descendants: 'has_many :descendants, readonly: true, polymorphic: true',
      parents: 'has_many :parents, readonly: true, polymorphic: true',
      children: 'has_many :children, readonly: true, polymorphic: true',
      child_plates: 'has_many :child_plates, readonly: true',
      child_tubes: 'has_many :child_tubes, readonly: true',
      direct_submissions: 'has_many :direct_submissions, readonly: true',
      state_changes: 'has_many :state_changes, readonly: true',
      aliquots: 'has_many :aliquots, readonly: true',
      receptacle: 'has_one :receptacle, readonly: true, foreign_key_on: :related',
      transfer_requests_as_target: 'has_many :transfer_requests_as_target, readonly: true',
      racked_tube: 'has_one :racked_tube, readonly: true, foreign_key_on: :related',
    },
  },
  users: {
    file: 'user_resource.rb',
    relationships: {},
  },
  volume_updates: {
    file: 'volume_update_resource.rb',
    relationships: {},
  },
  wells: {
    file: 'well_resource.rb',
    relationships: {
      samples: 'has_many :samples, readonly: true',
      studies: 'has_many :studies, write_once: true',
      projects: 'has_many :projects, write_once: true',
      requests_as_source: 'has_many :requests_as_source, readonly: true',
      requests_as_target: 'has_many :requests_as_target, readonly: true',
      qc_results: 'has_many :qc_results, readonly: true',
      aliquots: 'has_many :aliquots, readonly: true',
      downstream_assets: 'has_many :downstream_assets, readonly: true, polymorphic: true',
      downstream_wells: 'has_many :downstream_wells, readonly: true',
      downstream_plates: 'has_many :downstream_plates, readonly: true',
      downstream_tubes: 'has_many :downstream_tubes, readonly: true',
      upstream_assets: 'has_many :upstream_assets, readonly: true, polymorphic: true',
      upstream_wells: 'has_many :upstream_wells, readonly: true',
      upstream_plates: 'has_many :upstream_plates, readonly: true',
      upstream_tubes: 'has_many :upstream_tubes, readonly: true',
      transfer_requests_as_source: 'has_many :transfer_requests_as_source, readonly: true',
      transfer_requests_as_target: 'has_many :transfer_requests_as_target, readonly: true',
      labware: 'has_one :labware, write_once: true',
      poly_metadata: 'has_many :poly_metadata, as: :metadatable, class_name: "PolyMetadatum"',
    },
  },
  work_completions: {
    file: 'work_completion_resource.rb',
    relationships: {
      submissions: 'has_many :submissions, write_once: true',
      target: 'has_one :target, write_once: true',
      user: 'has_one :user, write_once: true',
    },
  },
  work_orders: {
    file: 'work_order_resource.rb',
    relationships: {
      study: 'has_one :study, write_once: true',
      project: 'has_one :project, write_once: true',
      source_receptacle: 'has_one :source_receptacle, write_once: true, polymorphic: true',
      samples: 'has_many :samples, write_once: true',
    },
  },
};
