import { describe, expect, it } from 'vitest';
import { RECEPTACLE_STATES } from '#lib/domain/labware.ts';
import { CONTENT_SECURITY_POLICY, errorPage, escapeHtml } from '#lib/pages/html.ts';
import {
  colourOf,
  hoverText,
  EMPTY,
  gridOf,
  type LabwareDocument,
  labwareMapPage,
  labwareView,
  legendOf,
  mapState,
  STATE_COLOURS,
  tagsOf,
  trailRows,
} from '#lib/pages/labware-map.ts';

/** The plate map's pure parts (lib/pages/): the grid, colours and legend, reading a document, escaping. */

const links = {
  page: (b: string) => `/labware/${encodeURIComponent(b)}`,
  document: '/api/v2/labware?x',
  self: '/api/v2/plates/1',
  trail: '/api/v2/labware_audits?filter[labware]=1',
};

/** A 96-well plate document as the engine renders it: A1 with a sample (name given), tags and a QC result; B1 empty; a parent. */
function plateDocument(sampleName: string): LabwareDocument {
  const wells = Array.from({ length: 96 }, (_, i) => ({ type: 'wells', id: String(1001 + i) }));
  return {
    data: [
      {
        type: 'plates',
        id: '1',
        attributes: { size: 96, state: 'passed', name: null, labware_barcode: { human_barcode: 'DN1S' } },
        relationships: { receptacles: { data: wells }, parents: { data: [{ type: 'plates', id: '2' }] }, children: { data: [] }, purpose: { data: null } },
      },
    ],
    included: [
      {
        type: 'wells',
        id: '1001',
        attributes: { position: { name: 'A1' }, state: 'passed' },
        relationships: { aliquots: { data: [{ type: 'aliquots', id: '1' }] }, qc_results: { data: [{ type: 'qc_results', id: '9' }] } },
      },
      { type: 'wells', id: '1002', attributes: { position: { name: 'B1' }, state: 'pending' }, relationships: { aliquots: { data: [] } } },
      {
        type: 'aliquots',
        id: '1',
        attributes: { tag_index: 3, tag_oligo: 'ACGT', tag2_index: 4, tag2_oligo: 'TTAA' },
        relationships: { sample: { data: { type: 'samples', id: '5' } } },
      },
      { type: 'samples', id: '5', attributes: { name: sampleName } },
      { type: 'qc_results', id: '9', attributes: { key: 'molarity', value: '4.2', units: 'nM', cv: null } },
      { type: 'plates', id: '2', attributes: { labware_barcode: { human_barcode: 'DN2T' } } },
    ],
  };
}

describe('gridOf', () => {
  it('lays a grid out row by row with position names, smaller wells on a 384-well plate', () => {
    const plate = gridOf(8, 12);
    expect(plate.cells).toHaveLength(96);
    expect(plate.cells.slice(0, 2).map((c) => c.name)).toEqual(['A1', 'A2']);
    expect(plate.cells.at(-1)).toMatchObject({ name: 'H12', row: 7, column: 11 });
    expect(plate.cells[1]!.cx - plate.cells[0]!.cx).toBe(plate.pitch);
    const big = gridOf(16, 24);
    expect(big.cells.at(-1)!.name).toBe('P24');
    expect(big.pitch).toBeLessThan(plate.pitch);
    // Every cell inside the drawing.
    for (const grid of [plate, big, gridOf(6, 8), gridOf(1, 1)]) {
      for (const c of grid.cells) {
        expect(c.cx + grid.radius).toBeLessThanOrEqual(grid.width);
        expect(c.cy + grid.radius).toBeLessThanOrEqual(grid.height);
      }
    }
    expect(gridOf(1, 1).cells.map((c) => c.name)).toEqual(['tube']);
  });
});

describe('colours and legend', () => {
  it('has a distinct colour for every receptacle state, and draws any other state as unknown', () => {
    for (const state of RECEPTACLE_STATES) expect(mapState(state)).toBe(state);
    expect(mapState('made_up')).toBe('unknown');
    const colours = Object.values(STATE_COLOURS);
    expect(new Set(colours).size).toBe(colours.length);
    expect(colours).not.toContain(EMPTY.fill);
  });

  it('fills a receptacle by its state, and outlines one that holds nothing, whatever its state', () => {
    const content = [{ sample: 's', tags: '' }];
    expect(colourOf({ position: 'A1', state: 'failed', contents: content, qc: [] }).fill).toBe(STATE_COLOURS.failed);
    expect(colourOf({ position: 'A1', state: 'failed', contents: [], qc: [] })).toEqual(EMPTY);
    expect(colourOf(undefined)).toEqual(EMPTY);
  });

  it('lists the states present, in a fixed order, and empty when some position holds nothing', () => {
    const view = labwareView(plateDocument('S1'));
    expect(legendOf(view)).toEqual({ states: ['passed'], empty: true });
  });
});

describe('reading the document', () => {
  it('names tags as i7/i5 when dual, tag when single, nothing without', () => {
    expect(tagsOf({ tag_index: 1, tag_oligo: 'AC', tag2_index: 2, tag2_oligo: 'GT' })).toBe('i7 1 AC · i5 2 GT');
    expect(tagsOf({ tag_index: 1, tag_oligo: 'AC', tag2_index: null, tag2_oligo: null })).toBe('tag 1 AC');
    expect(tagsOf({ tag_index: null, tag_oligo: null })).toBe('');
  });

  it('finds each well with its state, samples, tags and QC results, and the family', () => {
    const view = labwareView(plateDocument('S1'));
    expect(view).toMatchObject({
      type: 'plates',
      barcode: 'DN1S',
      rows: 8,
      columns: 12,
      state: 'passed',
      parents: [{ barcode: 'DN2T', type: 'plates' }],
      children: [],
    });
    expect(view.receptacles.get('A1')).toEqual({
      position: 'A1',
      state: 'passed',
      contents: [{ sample: 'S1', tags: 'i7 3 ACGT · i5 4 TTAA' }],
      qc: ['QC molarity 4.2 nM'],
    });
    expect(hoverText('A1', view.receptacles.get('A1'))).toBe('A1 · passed\nsample S1 · i7 3 ACGT · i5 4 TTAA\nQC molarity 4.2 nM');
    expect(hoverText('B1', view.receptacles.get('B1'))).toBe('B1 · pending\nno aliquots');
    expect(hoverText('C1', undefined)).toBe('C1: empty position');
  });
});

describe('why a position is in its state, and a qcable’s QC', () => {
  /** The plate of plateDocument with A1 failed, and its state changes (oldest first), each `[target_state, contents, reason, qcable state?]`. */
  function changed(changes: [string, string[] | null, string | null, string?][]): LabwareDocument {
    const doc = plateDocument('S1');
    const a1 = doc.included!.find((r) => r.id === '1001')!;
    a1.attributes!.state = 'failed';
    doc.data[0]!.relationships!.state_changes = { data: changes.map((_, i) => ({ type: 'state_changes', id: String(i + 1) })) };
    changes.forEach(([target_state, contents, reason, qcable], i) => {
      doc.included!.push({
        type: 'state_changes',
        id: String(i + 1),
        attributes: { target_state, contents, reason },
        relationships: { qcable: { data: qcable ? { type: 'qcables', id: String(i + 1) } : null } },
      });
      if (qcable) doc.included!.push({ type: 'qcables', id: String(i + 1), attributes: { state: qcable } });
    });
    return doc;
  }

  it('shows the reason of the latest change that put a well in its state, for the wells it named (or all)', () => {
    const view = labwareView(
      changed([
        ['passed', null, null],
        ['failed', ['a1'], 'Low yield'],
        ['failed', ['B1'], 'Dropped'],
      ]),
    );
    expect(hoverText('A1', view.receptacles.get('A1'))).toBe('A1 · failed (Low yield)\nsample S1 · i7 3 ACGT · i5 4 TTAA\nQC molarity 4.2 nM');
    // B1 is pending: the change that named it did not leave it so.
    expect(hoverText('B1', view.receptacles.get('B1'))).toBe('B1 · pending\nno aliquots');
    const again = labwareView(
      changed([
        ['failed', ['A1'], 'Low yield'],
        ['failed', null, 'Whole plate dropped'],
      ]),
    );
    expect(again.receptacles.get('A1')!.reason).toBe('Whole plate dropped');
    expect(labwareView(changed([['failed', ['A1'], '  ']])).receptacles.get('A1')!.reason).toBeUndefined();
    expect(labwareView(plateDocument('S1')).receptacles.get('A1')!.reason).toBeUndefined();
  });

  it("reads a qcable's labware (a tag plate) by its QC state, not its own derived one", () => {
    const tagPlate = changed([
      ['pending', null, 'lab day', 'pending'],
      ['passed', null, 'lab day', 'passed'],
    ]);
    tagPlate.data[0]!.attributes!.state = 'pending';
    const view = labwareView(tagPlate);
    expect(view.qcState).toBe('passed');
    // The qcable's changes moved no well: a pending well is not pending "because lab day".
    expect(hoverText('B1', view.receptacles.get('B1'))).toBe('B1 · pending\nno aliquots');
    const facts = labwareMapPage(view, links).match(/<p class="facts">([^<]*)<\/p>/)![1];
    expect(facts).toBe('plates · QC passed');
    // Without a qcable, the labware's own state.
    expect(labwareMapPage(labwareView(plateDocument('S1')), links)).toContain('<p class="facts">plates · state passed</p>');
  });
});

/** A `labware_audits` resource as the API renders it (lib/resources/labware-audits.ts). */
const audit = (attributes: Record<string, unknown>) => ({
  type: 'labware_audits',
  id: '1',
  attributes: { occurred_at: '2026-12-07T00:00:00.000Z', changes: {}, subjects: [], ...attributes },
});

describe('the history', () => {
  it('lists the trail as given (newest first): a state change by its target and reason, another write by what it changed', () => {
    const rows = trailRows({
      data: [
        audit({ who: 'admin', action: 'state_changes.created', subjects: [{ attributes: { target_state: 'passed', reason: 'all good' } }] }),
        audit({ who: 'test-write', action: 'qc_assays.created', changes: { 'qc_assays.created': 1, 'plates.updated': 1 } }),
        audit({ who: 'bench', action: 'poly_metadata/bulk_create', changes: { 'poly_metadata.created': 60 } }),
      ],
    });
    expect(rows.map((r) => [r.who, r.action, r.detail])).toEqual([
      ['admin', 'state_changes.created', '→ passed (all good)'],
      ['test-write', 'qc_assays.created', 'qc_assays.created, plates.updated'],
      ['bench', 'poly_metadata/bulk_create', 'poly_metadata.created ×60'],
    ]);
    const html = labwareMapPage(labwareView(plateDocument('S1')), links, { rows, total: 80 });
    expect(html).toContain('<h2>History</h2><table class="trail">');
    expect(html).toContain('<td>admin</td><td>state_changes.created</td><td>→ passed (all good)</td>');
    expect(html).toContain('The newest 3 of 80: <a href="/api/v2/labware_audits?filter[labware]=1">the whole trail</a>.');
    expect(labwareMapPage(labwareView(plateDocument('S1')), links)).toContain('<h2>History</h2><p>none recorded</p>');
  });
});

describe('escaping', () => {
  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml(null)).toBe('');
  });

  it('never lets a sample name, barcode or title become markup', () => {
    const evil = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>`;
    const doc = plateDocument(evil);
    doc.data[0]!.attributes!.labware_barcode = { human_barcode: evil };
    doc.data[0]!.attributes!.name = evil;
    const html = labwareMapPage(labwareView(doc), links);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img');
    // A reason and a login in the history are user input too.
    const trail = { data: [audit({ who: evil, action: 'state_changes.created', subjects: [{ attributes: { target_state: 'failed', reason: evil } }] })] };
    const withHistory = labwareMapPage(labwareView(plateDocument('S1')), links, { rows: trailRows(trail), total: 1 });
    expect(withHistory).not.toContain('<script>alert');
    expect(withHistory).not.toContain('<img');
    const error = errorPage(400, evil, evil, { problem: evil });
    expect(error).not.toContain('<script>alert');
    expect(error).not.toContain('<img');
  });

  it('allows only its own script and style, by hash', () => {
    expect(CONTENT_SECURITY_POLICY).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; script-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'/);
  });
});
