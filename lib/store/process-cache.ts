/**
 * Answers kept by one process (one warm Lambda container) for at most `ttlMs`, at most `size` of them,
 * the least recently used dropped first. What another process changes is therefore seen here within
 * `ttlMs`; what this process changes it forgets at once (`forget`). Used for API key lookups
 * (lib/store/api-keys.ts) and reference records (lib/store/reference-records.ts).
 */
export class ProcessCache<V> {
  /** Map order is recency order. */
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** Advanced whenever entries are forgotten, so that a lookup under way then does not keep a stale answer. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly size: number,
  ) {}

  /** The kept answer for `key` (`{ value }`, as undefined may be an answer), if it is younger than the TTL. */
  get(key: string): { value: V } | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.expires <= Date.now()) return undefined;
    this.entries.set(key, hit);
    return hit;
  }

  /** Taken before a lookup and handed to `keep` with its answer: the answer is kept unless entries were forgotten meanwhile. */
  ticket(): { generation: number; at: number } {
    return { generation: this.generation, at: Date.now() };
  }

  keep(key: string, value: V, ticket: { generation: number; at: number }): void {
    if (ticket.generation !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expires: ticket.at + this.ttlMs });
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Forgets `key`'s answer, or every answer. */
  forget(key?: string): void {
    this.generation++;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }

  get count(): number {
    return this.entries.size;
  }
}
