import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { Loader } from '#lib/jsonapi/context.ts';
import { registry } from '#lib/resources/index.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { createPlate } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * One request's loader (lib/jsonapi/context.ts) on DynamoDB Local: the include walk's branches load at once,
 * and a record they share must be one object, else its embedded records would be in a document twice.
 */
describe("a request's loader", () => {
  let plate: { id: string };
  beforeAll(async () => {
    await freshStore();
    plate = await createPlate();
  });

  it('reads a record asked for by loads at once one time, and hands each of them the same object', async () => {
    const loader = new Loader(registry);
    const ref = { type: 'plates', id: Number(plate.id) };
    const { result, commands } = await observeCalls(() => Promise.all(Array.from({ length: 5 }, () => loader.load([ref]))));
    const plates = result.map((found) => found.get(`plates:${plate.id}`));
    expect(plates[0]).toBeDefined();
    for (const found of plates) expect(found).toBe(plates[0]);
    expect(commands).toEqual({ BatchGetItemCommand: 1 });
  });

  it("finds the embedded records of a record loaded at once from one build of its views (a plate's wells)", async () => {
    const loader = new Loader(registry);
    const plateId = Number(plate.id);
    const [first, second] = await Promise.all([loader.load([{ type: 'plates', id: plateId }]), loader.load([{ type: 'wells', id: slotId(plateId, 1) }])]);
    const well = second.get(`wells:${slotId(plateId, 1)}`);
    expect(well).toBeDefined();
    expect(registry.heldByKey(first.get(`plates:${plateId}`)!).get(`receptacles:${slotId(plateId, 1)}`)).toBe(well);
  });
});
