/**
 * Limber's read strings (sanger/limber), copied from its code and flattened as json_api_client sends them,
 * for tests that read the service as Limber does.
 */

/** app/integrations/sequencescape/api/v2.rb, PLATE_PRESENTER_INCLUDES. */
export const PLATE_PRESENTER_INCLUDES = [
  'purpose',
  'child_plates.purpose',
  'wells.qc_results',
  'wells.downstream_tubes.purpose',
  'wells.requests_as_source.request_type',
  'wells.requests_as_source.primer_panel',
  'wells.requests_as_source.pre_capture_pool',
  'wells.requests_as_source.submission',
  'wells.aliquots.sample.sample_metadata',
  'wells.aliquots.request.request_type',
  'wells.aliquots.request.primer_panel',
  'wells.aliquots.request.pre_capture_pool',
  'wells.aliquots.request.submission',
  'wells.aliquots.request.poly_metadata',
  'wells.transfer_requests_as_target.source_asset',
];
/** v2.rb, plate_for_presenter: `.select(submissions: %w[lanes_of_sequencing multiplexed?], sample_metadata: %w[...])`. */
export const PRESENTER_FIELDS =
  'fields[submissions]=lanes_of_sequencing,multiplexed?&fields[sample_metadata]=sample_common_name,collected_by,sample_description';

/**
 * Relationships Limber's strings name that come with other work of issue 20 (the planner's
 * `transfer_requests_as_target`, labware's `state_changes`): `servedHere` leaves out the paths through
 * them, and nothing else.
 */
const ELSEWHERE = ['transfer_requests_as_target', 'state_changes'];
export const servedHere = (paths: string[], without: string[] = []): string =>
  paths.filter((p) => !without.includes(p) && !ELSEWHERE.some((name) => p.split('.').includes(name))).join(',');
