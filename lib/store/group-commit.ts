/**
 * One call at a time per key, each serving every request that waited while the one before it was under
 * way (a group commit): `send` gets the requests in the order they came and answers one result for each.
 * A failed call fails every request it was serving; the next call serves the next ones.
 */
export class GroupCommit<Request, Result> {
  /** Requests waiting for their key's next call; a key is present while a call for it is under way. */
  private readonly waiting = new Map<string, { request: Request; resolve: (result: Result) => void; reject: (error: unknown) => void }[]>();

  constructor(private readonly send: (requests: Request[]) => Promise<Result[]>) {}

  submit(key: string, request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ request, resolve, reject });
      else {
        this.waiting.set(key, [{ request, resolve, reject }]);
        void this.drain(key);
      }
    });
  }

  private async drain(key: string): Promise<void> {
    for (let batch = this.waiting.get(key)!; batch.length > 0; batch = this.waiting.get(key)!) {
      this.waiting.set(key, []);
      try {
        const results = await this.send(batch.map((w) => w.request));
        for (const [i, w] of batch.entries()) w.resolve(results[i]!);
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.waiting.delete(key);
  }
}
