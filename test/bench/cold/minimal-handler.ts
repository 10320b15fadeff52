import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start floor: the least a function of this service does at load — a DynamoDB document client
 * made once per container — and an answer of 200. `npm run bench` bundles it exactly as the stack bundles
 * the real functions and compares their module-load times with its own (./measure-cold.ts).
 */
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => ({ statusCode: 200, body: JSON.stringify({ client: typeof doc.send }) });
