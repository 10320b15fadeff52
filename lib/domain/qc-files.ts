import { gunzipSync, gzipSync } from 'node:zlib';
import { QC_FILE_STORED_BYTES } from '#lib/domain/budgets.ts';
import { ok, refuse, type Outcome } from '#lib/domain/problems.ts';

/**
 * QC files (the reference's QcFile): a file a lab attaches to labware, kept whole. The contents are stored
 * compressed in the file's own record (docs/decisions.md, "Bulk transfers, QC files and bait library
 * layouts"): gzip, then base64, so a record holds a text file several times its item budget.
 */

/** Characters of a file name: the reference's column. */
export const QC_FILENAME_MAX = 255;

/** A file's contents as stored, and its size as the reference renders it (bytes of the text). */
export interface PackedContents {
  packed: string;
  size: number;
}

/** The contents packed for storage, or why they do not fit (problems concern the input `contents`). */
export function packContents(contents: string): Outcome<PackedContents> {
  const size = Buffer.byteLength(contents, 'utf8');
  const packed = gzipSync(contents).toString('base64');
  if (packed.length > QC_FILE_STORED_BYTES)
    return refuse([
      {
        code: 'over_budget',
        input: ['contents'],
        detail: `${size} bytes compress to ${packed.length} stored bytes; a QC file may store at most ${QC_FILE_STORED_BYTES} (a DynamoDB item)`,
      },
    ]);
  return ok({ packed, size });
}

export const unpackContents = (packed: string): string => gunzipSync(Buffer.from(packed, 'base64')).toString('utf8');

/** Content types by file extension, as the reference's uploader derives them; anything else is octet-stream. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

export function contentTypeOf(filename: string): string {
  const extension = /\.([^./\\]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension && CONTENT_TYPES[extension]) ?? 'application/octet-stream';
}
