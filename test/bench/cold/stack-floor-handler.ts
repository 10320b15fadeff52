import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { store } from '#lib/store/entities.ts';

/**
 * The stack's floor: what any function of this stack loads before it does anything of its own — the
 * minimal handler's document client, and the table's ElectroDB model (lib/store/entities.ts, with the
 * configuration it reads through zod), made on first use as the functions make it. `npm run bench` reports
 * each function against it beside the minimal handler, to show how much of a load is the stack's own.
 */
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => ({ statusCode: 200, body: JSON.stringify({ client: typeof doc.send, entities: Object.keys(store().entities).length }) });
