import { bounded } from '#lib/store/bounded.ts';
import { store } from '#lib/store/entities.ts';
import { decodePayload, type PackedPayload, type RequestPayload } from '#lib/store/request-payload.ts';

/**
 * A write's payload items in the store, for the functions that serve requests (they load the store at start
 * anyway): its chunk items, written before its transaction and deleted if it does not commit, and its request
 * item read back with its payload (lib/store/request-payload.ts says how a payload is stored).
 */

/** Chunk writes (and deletes) one request runs at once. */
const PARALLEL_CHUNK_WRITES = 4;

const entities = async () => store().entities;

/** Writes a payload's chunk items (before the transaction that writes its request item); `ttl` as the request item's. */
export async function putChunks(key: string, ttl: number, chunks: PackedPayload['chunks']): Promise<void> {
  // Most payloads are inline: they need no write.
  if (chunks.length === 0) return;
  const { requestChunk } = await entities();
  await bounded(chunks, PARALLEL_CHUNK_WRITES, async (chunk) => {
    await requestChunk.put({ key, ttl, ...chunk }).go();
  });
}

/** Deletes the chunk items of a payload whose transaction did not commit. */
export async function deleteChunks(key: string, chunks: PackedPayload['chunks']): Promise<void> {
  if (chunks.length === 0) return;
  const { requestChunk } = await entities();
  await bounded(chunks, PARALLEL_CHUNK_WRITES, async ({ set, n }) => {
    await requestChunk.delete({ key, set, n }).go();
  });
}

/** A request item's payload, whichever form it is stored in (reading its chunks if it has any). */
export const readPayload = (item: Parameters<typeof decodePayload>[0]): Promise<RequestPayload> => decodePayload(item, entities);

/** A committed write's request item, its payload decoded (strongly consistent); undefined if there is none. */
export async function readRequest(key: string): Promise<(RequestPayload & { committedAt: string; requestHash?: string }) | undefined> {
  const { data } = await (await entities()).request.get({ key }).go({ consistent: true });
  if (!data) return undefined;
  return { committedAt: data.committedAt, ...(data.requestHash ? { requestHash: data.requestHash } : {}), ...(await readPayload(data)) };
}
