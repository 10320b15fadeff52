import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { documentClient } from '../bench/floor/db.ts';
import { createFloorServer } from '../bench/floor/server.ts';

/** A bench floor server (test/bench/floor/server.ts) on the test's DynamoDB Local table, on a free port. */
export interface RunningFloor {
  url: string;
  close(): Promise<void>;
}

/** Starts the floor against `store`'s table, for the parity tests that compare it with the service. */
export async function startFloor(store: { endpoint: string; tableName: string }): Promise<RunningFloor> {
  const doc = documentClient(store.endpoint);
  const server = createFloorServer({ doc, table: store.tableName });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      doc.destroy();
    },
  };
}
