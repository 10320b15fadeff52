import { createHash } from 'node:crypto';

/**
 * Pages for people (the plate map): HTML built as strings by pure functions. Every value that comes from
 * data or from the request goes through `escapeHtml` — sample names, tube names and QC values are user input.
 * The page runs only its own inline script and style, allowed by their hashes in the Content-Security-Policy,
 * so even a value that escaped escaping could not run.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value (always quoted) made safe for HTML and inline SVG. */
export const escapeHtml = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const STYLE = `
body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2433; max-width: 72rem; }
h1 { margin: 0 0 .25rem; font-size: 1.6rem; } h2 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.facts { margin: 0 0 1rem; color: #4a5468; }
.map { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
svg.grid { max-width: 100%; height: auto; }
.receptacle:hover circle, .receptacle:focus circle { stroke: #000; stroke-width: 2.5; }
.receptacle:focus { outline: none; }
.axis { font-size: 11px; fill: #4a5468; }
#details { flex: 1 1 18rem; min-height: 6em; margin: 0; padding: .6rem .8rem; background: #f3f5f9; border-radius: 6px; white-space: pre-wrap; }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; }
.legend svg { vertical-align: middle; margin-right: .3rem; }
form { display: flex; gap: .5rem; margin-top: 1rem; } input { font: inherit; padding: .3rem; min-width: 20rem; }
`;

/** Shows a receptacle's `<title>` text (sample, tags, QC) beside the map on hover or keyboard focus. */
const SCRIPT = `
const details = document.getElementById('details');
for (const el of document.querySelectorAll('.receptacle')) {
  const show = () => { details.textContent = el.querySelector('title').textContent; };
  el.addEventListener('mouseenter', show);
  el.addEventListener('focus', show);
}
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** No sources but the page's own hashed style and script; forms post only to this origin; never framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers of every page: HTML, the policy above, and nothing cached or sniffed (the pages show lab data). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  // Not `no-referrer`: with it the key form's POST would carry `Origin: null` and fail the same-origin check.
  'Referrer-Policy': 'same-origin',
};

/** A whole page around `body` (already HTML); `script` adds the hover script. */
export function page(title: string, body: string, { script = false } = {}): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body>${body}${script ? `<script>${SCRIPT}</script>` : ''}</body></html>`,
  ].join('');
}

/** A 401 page's key form, and what it says about the key sent before. */
export interface KeyForm {
  problem?: string;
}

/** An error as a page: its status and title, the detail, and for a 401 the form that takes a key. */
export function errorPage(status: number, title: string, detail: string, form?: KeyForm): string {
  const keyForm = form
    ? [
        form.problem ? `<p role="alert">${escapeHtml(form.problem)}</p>` : '',
        // No action: the form posts to the page's own URL, whatever prefix the service sits behind.
        '<form method="post">',
        '<label for="key">API key</label>',
        '<input id="key" name="key" type="password" autocomplete="current-password" required>',
        '<button type="submit">Open</button></form>',
        '<p>A read key is enough. The key is kept in a cookie for these pages only, until the browser closes.</p>',
      ].join('')
    : '';
  return page(`${status} ${title}`, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>${keyForm}</main>`);
}
