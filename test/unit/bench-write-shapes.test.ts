import { describe, expect, it } from 'vitest';
import { shapeDifferences, transactionShape } from '../bench/write-shapes.ts';

/** The bench's write parity check: the floor must write the items the service writes (ids, uuids and shards aside). */
const put = (pk: string, sk: string) => ({ Put: { TableName: 't', Item: { pk, sk, attrs: {} } } });
const update = (pk: string, sk: string) => ({ Update: { TableName: 't', Key: { pk, sk }, UpdateExpression: 'ADD #n :one' } });

const creation = (labware: number, barcode: string, shard: string, uuid: string) => [
  put(`$lts#family_labware#id_${labware}`, '$record_1'),
  put(`$lts#scope_barcode-guard#value_${barcode}`, '$term_1#ref_-'),
  put('$lts#scope_labware.parents#value_12', `$term_1#ref_0000000000${labware}#labware`),
  update('$lts#counts_labware', `$counts#shard_${shard}`),
  put(`$lts#key_auto:${uuid}`, '$request_1'),
];

describe('write shapes', () => {
  it('are equal for the same items whatever their ids, barcodes, shards and uuids, in any order', () => {
    const service = transactionShape(creation(41, 'DN1234567K', '03', '0b5c2a1e-8f1d-4c1a-9b7e-2f4d6a8c0e12'));
    const floor = transactionShape(creation(42, 'DN1234568L', '15', '7d3e9f20-1a2b-4c3d-8e4f-5a6b7c8d9e0f').reverse());
    expect(floor).toEqual(service);
    expect(shapeDifferences([service], [floor])).toEqual([]);
  });

  it('name the items only one side wrote, each as often as it wrote it more', () => {
    const service = transactionShape([
      ...creation(41, 'DN1K', '03', '0b5c2a1e-8f1d-4c1a-9b7e-2f4d6a8c0e12'),
      put('$lts#scope_labware.parents#value_13', '$term_1#ref_000000000041#labware'),
    ]);
    const floor = transactionShape([
      ...creation(42, 'DN2L', '04', '7d3e9f20-1a2b-4c3d-8e4f-5a6b7c8d9e0f'),
      update('$lts#counts_plate_creations', '$counts#shard_01'),
    ]);
    expect(shapeDifferences([service], [floor])).toEqual([
      'transaction 1 (6 items against 6): service only Put $lts#scope_labware.parents#value_# $term_##ref_##labware; floor only Update $lts#counts_plate_creations $counts#shard_#',
    ]);
    expect(shapeDifferences([service], [])).toEqual([`transaction 1 (6 items against 0): service only ${service.join(', ')}; floor only none`]);
  });
});
