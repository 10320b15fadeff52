import { layoutForSize, positionName } from '#lib/domain/geometry.ts';
import type { RECEPTACLE_STATES } from '#lib/domain/labware.ts';
import { escapeHtml, page } from '#lib/pages/html.ts';

/**
 * The plate map: a labware drawn from the JSON:API document the engine builds for
 * `GET /api/v2/labware?filter[barcode]=…&include=LABWARE_MAP_INCLUDE` — plates as their grid of wells, a
 * rack as its grid of tube positions, a tube as one receptacle — each coloured by state, with what it
 * holds (samples, tags, QC results) and why it is in its state (the reason of the state change that put
 * it there) in its SVG `<title>`, and links to the labware's family and its document. A labware QC'd as a
 * qcable (a tag plate) shows its qcable's state. Pure: a document in, a page out.
 */

/** What the page needs read with the labware, in one request (each level one batched read). */
export const LABWARE_MAP_INCLUDE = [
  'purpose',
  'parents',
  'children',
  'receptacles.aliquots.sample',
  'receptacles.qc_results',
  'racked_tubes.tube.receptacles.aliquots.sample',
  'racked_tubes.tube.receptacles.qc_results',
  // Why a receptacle is in its state, and the qcable a change moved (a tag plate's QC): both listed on the labware, no index read.
  'state_changes.qcable',
].join(',');

type Linkage = { type: string; id: string };
type Attributes = Record<string, unknown>;
/** A nested attribute (`labware_barcode.human_barcode`) read from a document. */
const member = (value: unknown, name: string): unknown => (value && typeof value === 'object' ? (value as Attributes)[name] : undefined);
export interface Resource {
  type: string;
  id: string;
  attributes?: Attributes;
  relationships?: Record<string, { data?: Linkage | Linkage[] | null }>;
  links?: { self?: string };
}
export interface LabwareDocument {
  data: Resource[];
  included?: Resource[];
}

/** An aliquot as the page shows it: its sample's name and its tags. */
export interface Content {
  sample: string;
  tags: string;
}
export interface Receptacle {
  position: string;
  state: string;
  /** The reason given by the state change that put it in its state, if one did and gave one. */
  reason?: string;
  contents: Content[];
  qc: string[];
  /** In a rack: the tube at this position, whose own page the position links to. */
  tube?: string;
}
export interface Kin {
  barcode: string;
  type: string;
}
export interface LabwareView {
  type: string;
  barcode: string;
  name: string | null;
  purpose: string | null;
  state: string;
  /** The state of the qcable its latest state change moved: a tag plate's QC, which its own (derived) state does not show. */
  qcState: string | null;
  /** The grid; a tube is one position. */
  rows: number;
  columns: number;
  receptacles: Map<string, Receptacle>;
  parents: Kin[];
  children: Kin[];
}

/** A state the map colours; anything else is drawn as `unknown`. */
export type MapState = (typeof RECEPTACLE_STATES)[number] | 'unknown';

/** Fill of each state: pending grey, work in progress blues, passed green, failed red, the ends muted. */
export const STATE_COLOURS: Readonly<Record<MapState, string>> = {
  pending: '#c9d1dc',
  started: '#9fd3f0',
  processed: '#4ba3d9',
  processed_1: '#3a8fc4',
  processed_2: '#2d7bb0',
  processed_3: '#22689b',
  processed_4: '#185586',
  passed: '#3f9b4a',
  failed: '#d1403a',
  qc_complete: '#7b5ea7',
  cancelled: '#6f747d',
  unknown: '#f0b429',
};
/** A receptacle that holds nothing: outlined, not filled, whatever its state. */
export const EMPTY = { fill: '#ffffff', stroke: '#9aa3b2' };

export const mapState = (state: string): MapState => (Object.hasOwn(STATE_COLOURS, state) ? (state as MapState) : 'unknown');

/** Where each position of a grid is drawn: centres `pitch` apart, after room for the row and column labels. */
export interface Cell {
  name: string;
  row: number;
  column: number;
  cx: number;
  cy: number;
}
export interface Grid {
  width: number;
  height: number;
  radius: number;
  pitch: number;
  cells: Cell[];
}

const MARGIN = 24;

/** The drawing of a rows × columns grid, row by row (A1, A2, …): a 384-well plate gets smaller wells than a 96. */
export function gridOf(rows: number, columns: number): Grid {
  const pitch = columns > 12 ? 24 : rows * columns === 1 ? 80 : 40;
  const layout = { size: rows * columns, rows, columns };
  const cells: Cell[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const name = rows * columns === 1 ? 'tube' : positionName(layout, row, column);
      cells.push({ name, row, column, cx: MARGIN + pitch * (column + 0.5), cy: MARGIN + pitch * (row + 0.5) });
    }
  }
  return { width: MARGIN + pitch * columns + 4, height: MARGIN + pitch * rows + 4, radius: pitch * 0.42, pitch, cells };
}

const many = (value: Linkage | Linkage[] | null | undefined): Linkage[] => (Array.isArray(value) ? value : value ? [value] : []);

/** Tags as lab people name them: i7 and i5 (index and oligo) when dual, `tag` when single. */
export function tagsOf(aliquot: Attributes | undefined): string {
  const tag = (label: string, index: unknown, oligo: unknown) => (index == null && oligo == null ? [] : [`${label} ${index ?? '?'} ${oligo ?? ''}`.trim()]);
  if (!aliquot) return '';
  const dual = aliquot.tag2_index != null || aliquot.tag2_oligo != null;
  return [...tag(dual ? 'i7' : 'tag', aliquot.tag_index, aliquot.tag_oligo), ...(dual ? tag('i5', aliquot.tag2_index, aliquot.tag2_oligo) : [])].join(' · ');
}

const qcLine = (qc: Attributes = {}) =>
  [
    `QC ${qc.key ?? ''}`,
    `${qc.value ?? ''}${qc.units ? ` ${qc.units}` : ''}`,
    qc.cv ? `(cv ${qc.cv})` : '',
    qc.assay_type ? `${qc.assay_type} ${qc.assay_version ?? ''}`.trim() : '',
  ]
    .filter(Boolean)
    .join(' ');

const barcodeOf = (resource: Resource | undefined) => String(member(resource?.attributes?.labware_barcode, 'human_barcode') ?? resource?.id ?? '');

/** The labware of the document (its first primary record) as the page draws it. */
export function labwareView(document: LabwareDocument): LabwareView {
  const labware = document.data[0]!;
  const index = new Map((document.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
  const related = (resource: Resource | undefined, name: string) =>
    many(resource?.relationships?.[name]?.data)
      .map((l) => index.get(`${l.type}:${l.id}`))
      .filter((r): r is Resource => r !== undefined);

  const receptacleOf = (resource: Resource, position: string, tube?: string): Receptacle => ({
    position,
    state: String(resource.attributes?.state ?? 'unknown'),
    contents: related(resource, 'aliquots').map((aliquot) => ({
      sample: String(related(aliquot, 'sample')[0]?.attributes?.name ?? '(unknown sample)'),
      tags: tagsOf(aliquot.attributes),
    })),
    qc: related(resource, 'qc_results').map((qc) => qcLine(qc.attributes)),
    ...(tube !== undefined ? { tube } : {}),
  });

  const attributes = labware.attributes ?? {};
  const layout = layoutForSize(Number(attributes.size));
  const changes = related(labware, 'state_changes');
  // A change that moved the labware's qcable moved none of its receptacles.
  const receptacleChanges = changes.filter((change) => many(change.relationships?.qcable?.data).length === 0);
  const receptacles = new Map<string, Receptacle>();
  if (labware.type === 'tube_racks') {
    for (const racked of related(labware, 'racked_tubes')) {
      const tube = related(racked, 'tube')[0];
      const position = String(racked.attributes?.coordinate);
      const held = related(tube, 'receptacles')[0];
      receptacles.set(position, {
        ...(held ? receptacleOf(held, position) : { position, state: 'unknown', contents: [], qc: [] }),
        tube: barcodeOf(tube),
      });
    }
  } else {
    for (const held of related(labware, 'receptacles')) {
      const position = layout ? String(member(held.attributes?.position, 'name')) : 'tube';
      receptacles.set(position, receptacleOf(held, position));
    }
  }
  for (const receptacle of receptacles.values()) {
    const reason = reasonFor(receptacleChanges, receptacle);
    if (reason) receptacle.reason = reason;
  }
  const kin = (name: string) => related(labware, name).map((r) => ({ barcode: barcodeOf(r), type: r.type }));
  const qcable = related(changes.at(-1), 'qcable')[0];
  return {
    type: labware.type,
    barcode: barcodeOf(labware),
    name: attributes.name == null ? null : String(attributes.name),
    purpose: (related(labware, 'purpose')[0]?.attributes?.name as string | undefined) ?? null,
    state: String(attributes.state ?? 'unknown'),
    qcState: qcable?.attributes?.state == null ? null : String(qcable.attributes.state),
    rows: layout?.rows ?? 1,
    columns: layout?.columns ?? 1,
    receptacles,
    parents: kin('parents'),
    children: kin('children'),
  };
}

/**
 * The reason of the latest state change that moved a receptacle to the state it is in: one whose target
 * state is that state and whose contents name its position (or are absent: the whole labware). The
 * labware lists its changes oldest first.
 */
function reasonFor(changes: Resource[], receptacle: Receptacle): string | undefined {
  const covers = (contents: unknown) =>
    !Array.isArray(contents) || contents.length === 0 || contents.some((name) => String(name).toUpperCase() === receptacle.position.toUpperCase());
  const change = changes.findLast((c) => c.attributes?.target_state === receptacle.state && covers(c.attributes?.contents));
  const reason = change?.attributes?.reason;
  return typeof reason === 'string' && reason.trim() ? reason : undefined;
}

/** The hover text of one position: where, its state (and why, when a state change said), what it holds, its QC results. */
export function hoverText(position: string, receptacle: Receptacle | undefined): string {
  if (!receptacle) return `${position}: empty position`;
  const lines = [
    `${position}${receptacle.tube ? ` · tube ${receptacle.tube}` : ''} · ${receptacle.state}${receptacle.reason ? ` (${receptacle.reason})` : ''}`,
    ...(receptacle.contents.length === 0 ? ['no aliquots'] : []),
    ...receptacle.contents.map((c) => `sample ${c.sample}${c.tags ? ` · ${c.tags}` : ''}`),
    ...receptacle.qc,
  ];
  return lines.join('\n');
}

/** Fill and outline of a position: its state's colour, or outlined when it holds nothing. */
export function colourOf(receptacle: Receptacle | undefined): { fill: string; stroke: string } {
  if (!receptacle || receptacle.contents.length === 0) return EMPTY;
  const fill = STATE_COLOURS[mapState(receptacle.state)];
  return { fill, stroke: fill };
}

/** The states shown on the map, in the order of STATE_COLOURS, and whether any position is empty: the legend. */
export function legendOf(view: LabwareView): { states: MapState[]; empty: boolean } {
  const filled = [...view.receptacles.values()].filter((r) => r.contents.length > 0);
  const present = new Set(filled.map((r) => mapState(r.state)));
  return {
    states: (Object.keys(STATE_COLOURS) as MapState[]).filter((s) => present.has(s)),
    empty: filled.length < view.rows * view.columns,
  };
}

/** Links the page gives: a labware's own page, and the JSON:API documents. */
export interface MapLinks {
  page: (barcode: string) => string;
  /** The document the page was drawn from. */
  document: string;
  /** The labware's own resource URL. */
  self: string;
  /** The labware's audit trail (`labware_audits`), whole, newest first. */
  trail: string;
}

/** Entries of the audit trail the page shows, the newest (the rest are a link away). */
export const TRAIL_SHOWN = 50;

/** One write in the labware's history as the page lists it. */
export interface TrailRow {
  at: string;
  who: string;
  action: string;
  detail: string;
}

/** The rows of a `labware_audits` page (lib/resources/labware-audits.ts), newest first as listed: a state change by its target state and reason, any other write by what it changed. */
export function trailRows(document: { data: Resource[] }): TrailRow[] {
  return document.data.map(({ attributes = {} }) => {
    const [subject] = (attributes.subjects ?? []) as { attributes: Attributes }[];
    const { target_state, reason } = subject?.attributes ?? {};
    const changes = Object.entries((attributes.changes ?? {}) as Record<string, number>).map(([type, n]) => (n > 1 ? `${type} ×${n}` : type));
    const detail = typeof target_state === 'string' ? `→ ${target_state}${typeof reason === 'string' && reason ? ` (${reason})` : ''}` : changes.join(', ');
    return { at: String(attributes.occurred_at ?? ''), who: String(attributes.who ?? ''), action: String(attributes.action ?? ''), detail };
  });
}

function trailHtml(rows: TrailRow[], total: number, links: MapLinks): string {
  const items = rows.map(
    (row) =>
      `<tr><td><time>${escapeHtml(row.at)}</time></td><td>${escapeHtml(row.who)}</td><td>${escapeHtml(row.action)}</td><td>${escapeHtml(row.detail)}</td></tr>`,
  );
  const more = total > rows.length ? `<p>The newest ${rows.length} of ${total}: <a href="${escapeHtml(links.trail)}">the whole trail</a>.</p>` : '';
  const table = `<table class="trail"><thead><tr><th>when</th><th>who</th><th>what</th><th>details</th></tr></thead><tbody>${items.join('')}</tbody></table>`;
  return `<h2>History</h2>${items.length ? table : '<p>none recorded</p>'}${more}`;
}

function svgOf(view: LabwareView, links: MapLinks): string {
  const grid = gridOf(view.rows, view.columns);
  const axes =
    view.rows * view.columns === 1
      ? ''
      : [
          ...Array.from(
            { length: view.columns },
            (_, c) => `<text class="axis" x="${MARGIN + grid.pitch * (c + 0.5)}" y="16" text-anchor="middle">${c + 1}</text>`,
          ),
          ...Array.from(
            { length: view.rows },
            (_, r) => `<text class="axis" x="10" y="${MARGIN + grid.pitch * (r + 0.5) + 4}" text-anchor="middle">${String.fromCharCode(65 + r)}</text>`,
          ),
        ].join('');
  const cells = grid.cells.map((cell) => {
    const receptacle = view.receptacles.get(cell.name);
    const { fill, stroke } = colourOf(receptacle);
    const state = receptacle ? mapState(receptacle.state) : 'empty';
    const circle = `<circle cx="${cell.cx}" cy="${cell.cy}" r="${grid.radius.toFixed(1)}" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/>`;
    const body = `<title>${escapeHtml(hoverText(cell.name, receptacle))}</title>${circle}`;
    const attrs = `class="receptacle" data-position="${escapeHtml(cell.name)}" data-state="${escapeHtml(state)}" tabindex="0"`;
    // A rack's position links to the tube in it.
    return receptacle?.tube ? `<a ${attrs} href="${escapeHtml(links.page(receptacle.tube))}">${body}</a>` : `<g ${attrs}>${body}</g>`;
  });
  const label = `${view.type} ${view.barcode}: ${view.rows * view.columns === 1 ? 'one receptacle' : `${view.rows} rows by ${view.columns} columns`}`;
  return `<svg class="grid" role="img" aria-label="${escapeHtml(label)}" width="${grid.width}" height="${grid.height}" viewBox="0 0 ${grid.width} ${grid.height}" xmlns="http://www.w3.org/2000/svg">${axes}${cells.join('')}</svg>`;
}

const swatch = (fill: string, stroke: string) =>
  `<svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="6" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/></svg>`;

function legendHtml(view: LabwareView): string {
  const { states, empty } = legendOf(view);
  const items = [
    ...states.map((s) => `<li data-state="${s}">${swatch(STATE_COLOURS[s], STATE_COLOURS[s])}${s}</li>`),
    ...(empty ? [`<li data-state="empty">${swatch(EMPTY.fill, EMPTY.stroke)}empty</li>`] : []),
  ];
  return `<h2>States</h2><ul class="legend">${items.join('')}</ul>`;
}

function kinList(title: string, kin: Kin[], links: MapLinks): string {
  const items = kin.map((k) => `<li><a href="${escapeHtml(links.page(k.barcode))}">${escapeHtml(k.barcode)}</a> (${escapeHtml(k.type)})</li>`);
  return `<h2>${title}</h2>${items.length ? `<ul class="${title.toLowerCase()}">${items.join('')}</ul>` : '<p>none</p>'}`;
}

/** The whole page of one labware. */
export function labwareMapPage(view: LabwareView, links: MapLinks, trail: { rows: TrailRow[]; total: number } = { rows: [], total: 0 }): string {
  // A qcable's labware (a tag plate) is QC'd as the qcable: its own state, derived from transfers into it, says nothing of that.
  const state = view.qcState ? `QC ${view.qcState}` : `state ${view.state}`;
  const facts = [view.type, view.purpose, view.name, state].filter((f): f is string => Boolean(f));
  const body = [
    `<header><h1>${escapeHtml(view.barcode)}</h1><p class="facts">${facts.map(escapeHtml).join(' · ')}</p></header>`,
    '<main><div class="map">',
    svgOf(view, links),
    '<pre id="details" aria-live="polite">Point at a position (or tab to it) to see what it holds.</pre></div>',
    legendHtml(view),
    kinList('Parents', view.parents, links),
    kinList('Children', view.children, links),
    trailHtml(trail.rows, trail.total, links),
    `<h2>JSON:API</h2><ul><li><a href="${escapeHtml(links.document)}">the document this map is drawn from</a></li>`,
    `<li><a href="${escapeHtml(links.self)}">the ${escapeHtml(view.type)} resource</a></li>`,
    `<li><a href="${escapeHtml(links.trail)}">its audit trail</a></li></ul>`,
    '</main>',
  ].join('');
  return page(`${view.barcode} · labware`, body, { script: true });
}
