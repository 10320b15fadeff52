import { afterAll } from 'vitest';
import { dropFreshStores } from './store.ts';

// Every test file: drop the tables it made once it is done (see freshStore).
afterAll(dropFreshStores);
