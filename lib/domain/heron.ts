import { columnOrder, positionIndex, type Layout } from '#lib/domain/geometry.ts';
import { outcome, quoted, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { UUID_FORMAT } from '#lib/domain/labware-ids.ts';

/**
 * Heron reception (the reference's app/models/heron/factories, with their concerns and README): a plate
 * or a rack of tubes received with its samples by well or tube coordinate. These rules read the body's
 * `wells` (or `tubes`) as the reference's Contents and RecipientsCoordinates concerns do: each key a
 * coordinate of the labware (padded `A01` or not, as CoordinatesSupport#unpad_coordinate takes it), each
 * `content` one sample or a list of them, each sample an existing one (`sample_uuid`, nothing else) or a
 * new one with the sample's and its metadata's fields, under a study.
 */

/** The members a content may carry besides the sample's fields (Heron::Factories::Sample#sample_keys). */
const CONTENT_KEYS = ['sample_uuid', 'study_uuid', 'uuid'] as const;

/** The fields a new sample may take: its own and its metadata record's (the reference's two tables' columns). */
export interface SampleColumns {
  sample: ReadonlySet<string>;
  metadata: ReadonlySet<string>;
}

/** One sample a content names, where it goes and where it was sent. */
export interface HeronSample {
  /** The coordinate as the labware spells it (`A1`) and its slot in column order (1-based). */
  coordinate: string;
  slot: number;
  /** Where it is in the body's attributes: `['wells', 'A01', 'content']`, with the index when a list. */
  input: readonly string[];
  /** An existing sample's uuid; else undefined and the fields below make a new one. */
  existing?: string;
  /** The uuid the new sample is to have (lighthouse's `lh_sample_uuid`), lowercase; else it gets one of this service's. */
  uuid?: string;
  /** The study: the labware's when given (it takes precedence, as the reference's), else the content's. */
  study?: string;
  sample: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const PADDED = /^([A-Za-z])0*([1-9][0-9]*)$/;

/** `A01` → `A1` (the reference's Map.strip_description); anything else as sent. */
export const unpadCoordinate = (key: string): string => {
  const match = PADDED.exec(key);
  return match ? `${match[1]!.toUpperCase()}${match[2]}` : key;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Each key of the body's recipients (`wells` or `tubes`) a coordinate of the labware's layout, each
 * coordinate once however it is padded: answers the coordinate of each key, in the keys' order.
 */
export function placeRecipients(field: string, keys: readonly string[], layout: Layout): Outcome<string[]> {
  const last = columnOrder(layout).at(-1);
  const seen = new Map<string, string>();
  const problems: Problem[] = [];
  const coordinates = keys.map((key) => {
    const coordinate = unpadCoordinate(key);
    if (positionIndex(layout, coordinate) === undefined) {
      problems.push({
        code: 'not_a_coordinate',
        input: [field, key],
        detail: `the location ${quoted(key)} has an invalid format: not a coordinate of a ${layout.size}-position labware (A1 to ${last})`,
      });
    } else if (seen.has(coordinate)) {
      problems.push({
        code: 'coordinate_twice',
        input: [field, key],
        detail: `${quoted(key)} names ${coordinate} again (as ${quoted(seen.get(coordinate)!)})`,
      });
    } else seen.set(coordinate, key);
    return coordinate;
  });
  return outcome(problems, () => coordinates);
}

/** One content entry checked as Heron::Factories::Sample validates it; its fields split between the sample and its metadata. */
function contentSample(given: unknown, at: readonly string[], columns: SampleColumns, labwareStudy: string | undefined, problems: Problem[]) {
  if (!isObject(given)) {
    problems.push({ code: 'not_a_map', input: at, detail: `a content is an object of sample fields, got ${JSON.stringify(given)?.slice(0, 80)}` });
    return undefined;
  }
  const existing = given.sample_uuid;
  const fields = Object.keys(given).filter((key) => !(CONTENT_KEYS as readonly string[]).includes(key));
  if (existing !== undefined && existing !== null) {
    // The reference: "No other params can be added when sample uuid specified".
    for (const key of fields) problems.push({ code: 'not_assignable', input: [...at, key], detail: 'no other field can be given with sample_uuid' });
    return { existing: String(existing), study: labwareStudy ?? stringOrUndefined(given.study_uuid), sample: {}, metadata: {} };
  }
  const sample: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  for (const key of fields) {
    if (columns.sample.has(key)) sample[key] = given[key];
    else if (columns.metadata.has(key)) metadata[key] = given[key];
    else problems.push({ code: 'unknown_field', input: [...at, key], detail: 'is no field of a sample or its metadata' });
  }
  const study = labwareStudy ?? stringOrUndefined(given.study_uuid);
  if (study === undefined)
    problems.push({ code: 'blank', input: [...at, 'study_uuid'], detail: "the study can't be blank: give study_uuid on the labware or the content" });
  // The reference names a new sample after its sanger sample id unless the content names it (Heron::Factories::Sample#params_for_sample_creation).
  if (sample.name === undefined && typeof sample.sanger_sample_id === 'string') sample.name = sample.sanger_sample_id;
  const uuid = typeof given.uuid === 'string' ? given.uuid.toLowerCase() : given.uuid;
  if (uuid === undefined || uuid === null) return { study, sample, metadata };
  if (typeof uuid !== 'string' || !UUID_FORMAT.test(uuid))
    problems.push({ code: 'not_a_uuid', input: [...at, 'uuid'], detail: `must be a uuid (8-4-4-4-12 hexadecimal digits), got ${JSON.stringify(uuid)}` });
  return { study, sample, metadata, uuid: String(uuid) };
}

/**
 * A new sample's sanger sample id when the content gives none (the reference's
 * SangerSampleId.generate_sanger_sample_id!: the study's abbreviation and the next number of a sequence);
 * here the number is the sample's id, unique and reserved by the reception anyway, so no other counter is
 * advanced. None without an abbreviation.
 */
export const generatedSangerSampleId = (abbreviation: string | undefined, sampleId: number): string | undefined =>
  abbreviation === undefined ? undefined : `${abbreviation}${sampleId}`;

const stringOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The samples the recipients' contents name, in the recipients' order (a content may be one sample or a
 * list of them): every problem of every content at once, as the reference reports them together.
 */
export function planContents(
  field: string,
  recipients: Readonly<Record<string, unknown>>,
  coordinates: readonly string[],
  layout: Layout,
  columns: SampleColumns,
  labwareStudy: string | undefined,
): Outcome<HeronSample[]> {
  const problems: Problem[] = [];
  const samples = Object.entries(recipients).flatMap(([key, recipient], k) => {
    const coordinate = coordinates[k]!;
    const slot = positionIndex(layout, coordinate)! + 1;
    const content = isObject(recipient) ? recipient.content : undefined;
    if (content === undefined || content === null) return [];
    const list = Array.isArray(content);
    return ([] as unknown[]).concat(content).flatMap((given, i) => {
      const input = list ? [field, key, 'content', String(i)] : [field, key, 'content'];
      const made = contentSample(given, input, columns, labwareStudy, problems);
      return made ? [{ coordinate, slot, input, ...made }] : [];
    });
  });
  problems.push(...givenOnce(samples, 'name', (s) => s.sample.name), ...givenOnce(samples, 'uuid', (s) => s.uuid));
  return outcome(problems, () => samples);
}

/** A new sample's name and uuid are unique (in any case), so one reception gives each once. */
function givenOnce(samples: readonly HeronSample[], field: string, given: (sample: HeronSample) => unknown): Problem[] {
  const first = new Map<string, HeronSample>();
  return samples.flatMap((sample): Problem[] => {
    const value = given(sample);
    if (typeof value !== 'string') return [];
    const earlier = first.get(value.toLowerCase());
    if (!earlier) {
      first.set(value.toLowerCase(), sample);
      return [];
    }
    return [{ code: 'given_twice', input: [...sample.input, field], detail: `${quoted(value)} is the ${field} of the sample at ${earlier.coordinate} too` }];
  });
}

/** The reference's Heron plate event (BroadcastEvent::PlateCherrypicked): its type, and the subjects' roles it needs. */
export const CHERRYPICKED_EVENT_TYPE = 'lh_beckman_cp_destination_created';
const CHERRYPICKED_ROLES = ['robot', 'cherrypicking_source_labware', 'sample'] as const;

/**
 * Each event given with a plate (`events: [{event: {event_type, subjects, …}}]`) is a cherrypicking of the
 * plate: of the one type the reference knows, with a robot, source labware and sample subjects (the
 * destination is the plate itself).
 */
export function checkPlateEvents(events: readonly unknown[]): Problem[] {
  return events.flatMap((entry, i): Problem[] => {
    const event = isObject(entry) ? entry.event : undefined;
    if (!isObject(event)) return [{ code: 'not_a_map', input: ['events', String(i)], detail: 'an event is {"event": {…}}' }];
    if (event.event_type !== CHERRYPICKED_EVENT_TYPE)
      return [
        {
          code: 'not_allowed',
          input: ['events', String(i), 'event', 'event_type'],
          detail: `only ${quoted(CHERRYPICKED_EVENT_TYPE)} is known, got ${JSON.stringify(event.event_type)}`,
        },
      ];
    const subjects = Array.isArray(event.subjects) ? event.subjects : [];
    const roles = new Set(subjects.map((s) => (isObject(s) ? s.role_type : undefined)));
    const missing = CHERRYPICKED_ROLES.filter((role) => !roles.has(role));
    if (missing.length === 0) return [];
    return [{ code: 'blank', input: ['events', String(i), 'event', 'subjects'], detail: `no subject of role_type ${missing.map(quoted).join(', ')}` }];
  });
}
