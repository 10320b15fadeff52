/**
 * The route table: one Lambda function per resource type, serving `/api/v2/<type>` and every path below
 * it (and a few pages for people, the labware's plate map), plus a fallback for any other path (so unknown paths still answer 401/404 as JSON:API). The CDK
 * stack, the local server and the tests all read this table.
 *
 * It is data only: it imports nothing, so reading it loads neither the handler (middy), the store nor the
 * resource registry. test/unit/routes.test.ts keeps it in step with the registry (every type, methods
 * and actions from each resource's declarations) and with the entry files `functions/<name>.ts`.
 */
export interface Route {
  /** Function name and its entry file `functions/<name>.ts`. */
  name: string;
  /** The types it serves; empty for the fallback. */
  types: readonly string[];
  /** HTTP methods the function answers with something other than 405. */
  methods: readonly string[];
  /** The custom actions of its type, each served at `<method> /api/v2/<type>/<name>` (or `/api/v2/<type>/<id>/<name>`, one on a record). */
  actions: readonly RouteAction[];
  /** Pages for people it serves outside `/api/v2`, as path templates of one parameter (`/labware/{barcode}`). */
  pages: readonly string[];
}

/** A custom action (lib/jsonapi/resource.ts, ActionDef). */
export interface RouteAction {
  name: string;
  method: string;
}

export const FALLBACK = 'not-found';

const READ = ['GET'] as const;
const READ_CREATE = ['GET', 'POST'] as const;
const READ_WRITE = ['GET', 'POST', 'PATCH'] as const;
const READ_UPDATE = ['GET', 'PATCH'] as const;

/** A function serving one type. */
const one = (type: string, methods: readonly string[], actions: readonly RouteAction[] = []): Route => ({
  name: type,
  types: [type],
  methods,
  actions,
  pages: [],
});

/** The plate map (lib/http/middleware/labware-page.ts): HTML drawn from the labware function's own reads. */
export const LABWARE_PAGE = '/labware/{barcode}';

export const routes: readonly Route[] = [
  one('samples', READ_WRITE),
  one('sample_metadata', READ_WRITE),
  one('users', READ),
  one('studies', READ),
  one('plate_purposes', READ_CREATE),
  one('tube_purposes', READ_CREATE),
  one('tube_rack_purposes', READ_CREATE),
  one('purposes', READ),
  one('request_types', READ),
  one('barcode_printers', READ),
  one('submission_templates', READ),
  one('tag_group_adapter_types', READ),
  one('tag_groups', READ),
  one('tag_sets', READ),
  one('tag_layout_templates', READ),
  one('transfer_templates', READ),
  { ...one('labware', READ), pages: [LABWARE_PAGE] },
  one('plates', READ_CREATE, [{ name: 'register_stock_for_plate', method: 'POST' }]),
  one('tubes', READ_CREATE),
  one('tube_racks', READ_WRITE),
  one('wells', READ),
  one('receptacles', READ),
  one('aliquots', READ_CREATE),
  one('racked_tubes', READ),
  one('custom_metadatum_collections', READ_WRITE),
  one('lot_types', READ),
  one('lots', READ_CREATE),
  one('qcables', READ_WRITE),
  one('qcable_creators', READ_CREATE),
  one('state_changes', READ_CREATE),
  one('qc_assays', READ_CREATE),
  one('qc_results', READ),
  one('submissions', READ_CREATE),
  one('orders', READ_CREATE),
  one('requests', READ_WRITE),
  one('request_metadata', READ_WRITE),
  one('poly_metadata', READ_WRITE, [{ name: 'bulk_create', method: 'POST' }]),
  one('transfers', READ_CREATE),
  one('transfer_requests', READ),
  one('transfer_request_collections', READ_CREATE),
  one('plate_conversions', READ_CREATE),
  one('tube_from_plate_creations', READ_CREATE),
  one('plate_creations', READ_CREATE),
  one('pooled_plate_creations', READ_CREATE),
  one('tube_from_tube_creations', READ_CREATE),
  one('specific_tube_creations', READ_CREATE),
  one('specific_tube_rack_creations', READ_CREATE),
  one('tag_layouts', READ_CREATE),
  one('work_completions', READ_CREATE),
  one('projects', READ),
  one('primer_panels', READ),
  one('pre_capture_pools', READ),
  one('submission_pools', READ),
  one('tags', READ),
  one('bulk_transfers', READ_CREATE),
  one('qc_files', READ_CREATE),
  one('bait_libraries', READ),
  one('bait_library_layouts', READ_CREATE, [{ name: 'preview', method: 'POST' }]),
  one('asset_audits', READ_CREATE),
  one('volume_updates', READ_CREATE),
  one('comments', READ_CREATE),
  one('labware_audits', READ),
  one('faculty_sponsors', READ),
  one('study_metadata', READ),
  one('sample_manifests', READ),
  one('lanes', READ),
  one('work_orders', READ_UPDATE),
  one('pick_lists', READ_CREATE),
  one('fragments', READ),
  one('tube_rack_statuses', READ),
  one(
    'heron',
    ['POST'],
    [
      { name: 'plates', method: 'POST' },
      { name: 'tube_racks', method: 'POST' },
      { name: 'tube_rack_statuses', method: 'POST' },
    ],
  ),
  { name: FALLBACK, types: [], methods: [], actions: [], pages: [] },
];

export const entryFile = (route: Route): string => `functions/${route.name}.ts`;

/** The route of a function name; throws for a name not in the table. */
export function routeNamed(name: string): Route {
  const route = routes.find((r) => r.name === name);
  if (!route) throw new Error(`no route named ${name}`);
  return route;
}

/** The first segment of a page template or path: `labware` of `/labware/{barcode}`. */
const pageSegment = (path: string): string | undefined => /^\/([^/?]+)\/[^/?]+$/.exec(path)?.[1];

/** Which route serves a request path: its type's, or the route of the page it is, else the fallback. */
export function routeForPath(path: string): Route {
  const type = /^\/api\/v2\/([^/?]+)/.exec(path)?.[1];
  const page = pageSegment(path);
  return (
    routes.find((r) => (type !== undefined && r.types.includes(type)) || (page !== undefined && r.pages.some((p) => pageSegment(p) === page))) ??
    routeNamed(FALLBACK)
  );
}
