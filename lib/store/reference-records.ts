import { config } from '#lib/config.ts';
import { ProcessCache } from '#lib/store/process-cache.ts';
import { recordKey, type StoredRecord } from '#lib/store/records.ts';

/**
 * Reference records (users, studies, purposes, templates, tag groups, lots, …: `referenceData` types)
 * are written only by the admin loader (lib/reference/load.ts) — purposes also created through the API by
 * admin keys, never changed there — and never deleted. A write that links or names one (a sample's study, a transfer's template and user) may use
 * the copy this process read in the last REFERENCE_CACHE_TTL_MS instead of reading it again: one
 * DynamoDB read less for most creates (docs/decisions.md, "Storage (one table)"). A
 * record missing is never kept, so a record just loaded is found at once; a record the loader changes
 * reaches other processes' writes within the TTL, and this process's at once (`forgetReferenceRecord`).
 * Reads (GET) always read the table.
 */
export const REFERENCE_CACHE_TTL_MS = 60_000;
/** Records kept at most; reference data is small (hundreds of records), this bounds a process's memory. */
export const REFERENCE_CACHE_SIZE = 2_000;

const cache = new ProcessCache<StoredRecord>(REFERENCE_CACHE_TTL_MS, REFERENCE_CACHE_SIZE);
/** By table too: tests and `npm start` may serve several tables from one process. */
const cacheKey = (family: string, id: number) => `${config().LTS_TABLE_NAME}\n${recordKey(family, id)}`;

export const cachedReferenceRecord = (family: string, id: number): StoredRecord | undefined => cache.get(cacheKey(family, id))?.value;

/** A ticket to take before reading records that may be kept (ProcessCache.ticket). */
export const referenceTicket = () => cache.ticket();

export function keepReferenceRecord(record: StoredRecord, ticket: ReturnType<typeof referenceTicket>): void {
  cache.keep(cacheKey(record.family, record.id), record, ticket);
}

export function forgetReferenceRecord(family: string, id: number): void {
  cache.forget(cacheKey(family, id));
}

/** How many reference records this process keeps (tests). */
export const referenceCacheSize = (): number => cache.count;

/** Forgets every kept reference record (tests that count a cold write's calls). */
export function clearReferenceCache(): void {
  cache.forget();
}
