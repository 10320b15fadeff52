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

/** An include string of Limber's paths, less those a test leaves out (and says why). */
export const limberInclude = (paths: string[], without: string[] = []): string => paths.filter((p) => !without.includes(p)).join(',');

/** Sequencescape::Api::V2::Plate::DEFAULT_INCLUDES (plate.rb), flattened: what every plate creator's first read and Plate.find_all send. */
export const PLATE_DEFAULT_INCLUDES = [
  'purpose',
  'wells.requests_as_source.primer_panel',
  'wells.aliquots.request.primer_panel',
  'wells.aliquots.request.request_type',
];

/** app/models/ongoing_plate.rb, `search_parameters` (lines 7-13): the states the ongoing-plates search asks for unless told (all six). */
export const ONGOING_PLATE_STATES = ['pending', 'started', 'passed', 'qc_complete', 'failed', 'cancelled'];

/** app/models/asset_search_form.rb line 7: `per_page` of the ongoing plates and tubes searches. */
export const SEARCH_PER_PAGE = 30;

/**
 * Limber's ongoing-plates search as it puts it on the wire: search_controller.rb `ongoing_plates` (lines
 * 11-17) calls `Plate.find_all(OngoingPlate#search_parameters, paginate: {page:, per_page:})`, which
 * (plate.rb lines 42-46) sends `includes(*DEFAULT_INCLUDES).where(state:, purpose_name:, include_used:)`
 * and `.paginate`: the purposes the user picked, by name; `include_used` true only when ticked; 30 a
 * page (a test may ask for another size).
 */
export const ongoingPlatesQuery = (purposes: string[], page: number, perPage = SEARCH_PER_PAGE, includeUsed = false): string =>
  faradayQuery({
    filter: { include_used: String(includeUsed), purpose_name: purposes.join(','), state: ONGOING_PLATE_STATES.join(',') },
    include: PLATE_DEFAULT_INCLUDES.join(','),
    page: { number: String(page), size: String(perPage) },
  });

/** What Limber's client (json_api_client over Faraday over Ruby's Net::HTTP) sends as Accept-Encoding by default. */
export const LIMBER_ACCEPT_ENCODING = 'gzip;q=1.0,deflate;q=0.6,identity;q=0.3';

/** v2.rb `plate_for_completion`'s include string. */
export const PLATE_FOR_COMPLETION = 'wells.aliquots.request.submission,wells.aliquots.request.request_type';
/** v2.rb `tube_for_completion`'s include string (Tubes::WorkCompletionsController reads the tube with it). */
export const TUBE_FOR_COMPLETION = 'receptacle.aliquots.request.submission,receptacle.aliquots.request.request_type';
/** v2.rb `tube_rack_for_completion`'s include string (the automatic tube rack state changer reads the rack with it). */
export const TUBE_RACK_FOR_COMPLETION = 'racked_tubes.tube.receptacle.aliquots.request.submission,tube_receptacles.aliquots.request.request_type';

/** app/integrations/sequencescape/api/v2/tube.rb, DEFAULT_INCLUDES: the tube page's read. */
export const TUBE_DEFAULT_INCLUDES = 'purpose,receptacle.aliquots.request.request_type,receptacle.requests_as_source.request_type';
/** v2.rb, TUBE_RACK_PRESENTER_INCLUDES (six levels deep): the rack page's read. */
export const TUBE_RACK_PRESENTER_INCLUDES = 'purpose,racked_tubes.tube.purpose,racked_tubes.tube.receptacle.aliquots.request.request_type';

/*
 * How Limber's client puts a call on the wire (json_api_client over Faraday, read 2026-11-27; facts carried
 * over, not code): `.select(type: [fields])` sends `fields[type]=a,b`; `.where(k: v)` / `.find(k: v)` sends
 * `filter[k]=v` (arrays joined by commas); `.order(updated_at: :asc)` sends `sort=updated_at`;
 * `.paginate(page:, per_page:)` sends `page[number]` / `page[size]` (its SequencescapePaginator). Faraday's
 * nested-params encoder sorts the keys and percent-encodes every character outside `[A-Za-z0-9 .~_-]`
 * (brackets, commas and `?` included), spaces as `+`. `Model.create!(attrs)` POSTs
 * `{"data":{"type":…,"attributes":{…}}}` with every attribute given (nil as null).
 */

/** Faraday's escape. */
const faradayEscape = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => {
      const c = String.fromCharCode(byte);
      return /[A-Za-z0-9 .~_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('')
    .replaceAll(' ', '+');

/** Faraday's NestedParamsEncoder for the one level of nesting Limber sends: sorted keys, `a[b]=c`. */
export function faradayQuery(params: Record<string, string | Record<string, string>>): string {
  const pairs: [string, string][] = [];
  for (const key of Object.keys(params).sort()) {
    const value = params[key]!;
    if (typeof value === 'string') pairs.push([key, value]);
    else for (const inner of Object.keys(value).sort()) pairs.push([`${key}[${inner}]`, value[inner]!]);
  }
  return pairs.map(([k, v]) => `${faradayEscape(k)}=${faradayEscape(v)}`).join('&');
}
