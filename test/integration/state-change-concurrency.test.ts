import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.ts';
import { inBatches } from '../support/fixtures.ts';
import { withRequestBudget } from '../support/request-budget.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, scanTable } from '../support/table.ts';
import { plateView, postStateChange, requestsOfSubmission, workPlate, type WorkPlate } from '../support/work.ts';

/**
 * State changes from 50 clients at once (contract §6). Of one plate: the changes serialise on the plate's
 * version; the first moves each well once and starts each request once, the others run again from fresh
 * reads, find the wells already there and are recorded as changes that moved nothing (201), or outlast
 * their conflict window (409). Of 50 plates: none waits on another.
 */

beforeAll(freshStore);

const CLIENTS = 50;
// Fifty writes of one record commit one after another: a budget no loaded machine outlasts (as lab-concurrency.test.ts).
const BURST_BUDGET_MS = 240_000;
withRequestBudget(BURST_BUDGET_MS);

describe('50 clients at once', () => {
  it('changing ONE plate to passed: each well moves once, each request starts once; the rest are changes that moved nothing', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const { plate, submission } = await workPlate(8);
    const results = await Promise.all(Array.from({ length: CLIENTS }, () => postStateChange(plate, 'passed')));
    expect(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => JSON.stringify(r.body))).toEqual([]);
    const created = results.filter((r) => r.status === 201).map((r) => r.body.data);
    expect(created.length).toBeGreaterThan(0);
    // Exactly one change found the wells pending; every other one found them passed.
    expect(created.filter((c) => c.attributes.previous_state === 'pending')).toHaveLength(1);
    expect(created.filter((c) => c.attributes.previous_state === 'passed')).toHaveLength(created.length - 1);

    const view = await plateView(plate.id);
    expect([...view.wells.values()].filter((w) => w.requests.length > 0).map((w) => w.state)).toEqual(Array(8).fill('passed'));
    const requests = await requestsOfSubmission(submission);
    expect(requests.map((r) => r.attributes.state)).toEqual(Array(8).fill('started'));
    const events = await outboxEvents();
    const ids = new Set(requests.map((r) => r.id));
    // No lost request update and none twice: one state_changed event per request.
    expect(events.filter((e) => e.type === 'requests.state_changed' && ids.has(e.resource.id))).toHaveLength(8);
    expect(events.filter((e) => e.type === 'plates.state_changed' && e.resource.id === plate.id)).toHaveLength(created.length);
    const listed = (await call('GET', `/api/v2/plates/${plate.id}/relationships/state_changes`)).body.data.map((r: any) => r.id).sort();
    expect(listed).toEqual(created.map((c) => c.id).sort());
  });

  it('changing 50 plates (each from its own parent): 50 × 201, none conflicts', { timeout: BURST_BUDGET_MS + 60_000 }, async () => {
    const plates: WorkPlate[] = await inBatches(CLIENTS, 5, () => workPlate(1));
    const results = await Promise.all(plates.map(({ plate }) => postStateChange(plate, 'passed')));
    expect(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${JSON.stringify(r.body.errors?.[0])}`)).toEqual([]);
    for (const { submission } of plates.slice(0, 5)) expect((await requestsOfSubmission(submission))[0].attributes.state).toBe('started');
  });
});

describe('the item budget', () => {
  // 5 items (transactionItems(stateChangeItems(1, 1))): the plate, the one book of its 96 requests, the state change, its count shard, the request item. Before request books it was 100, the most a transaction holds.
  it('a 96-well plate’s first pass (96 requests started, all in one request book) is one transaction of 5 items', { timeout: 300_000 }, async () => {
    const { plate, submission } = await workPlate(96);
    const res = await postStateChange(plate, 'passed');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const states = (await requestsOfSubmission(submission)).map((r) => r.attributes.state);
    expect(states).toEqual(Array(96).fill('started'));
    const books = (await scanTable('record')).filter((item) => item.type === 'request_books' && item.attrs.submission === Number(submission));
    expect(books.map((book) => book.attrs.requests.length)).toEqual([96]);
  });
});
