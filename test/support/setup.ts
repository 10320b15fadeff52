import { afterAll } from 'vitest';
import { freshTables } from './fresh-tables.ts';

// Every test file: drop the tables it made once it is done (see freshStore).
afterAll(async () => {
  if (freshTables.length > 0) await (await import('./store.ts')).dropFreshStores();
});
