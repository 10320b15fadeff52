/**
 * The tables this test file has made (test/support/store.ts adds them; test/support/setup.ts drops them once
 * the file is done). A module of its own, importing nothing: the set-up every test file runs, unit tests
 * included, then loads the service's modules only in a file that made a table.
 */
export const freshTables: { endpoint: string; tableName: string }[] = [];
