import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { store } from '#lib/store/entities.ts';

/**
 * The stack floor: what every function of this stack loads before anything of its own — the DynamoDB
 * document client (lib/store/client.ts, the AWS SDK with it) and the table's ElectroDB model
 * (lib/store/entities.ts), and the configuration both are made from, parsed through zod at load as the
 * functions parse it; the client and the model are made on first use, as the functions make them.
 * ElectroDB is the users' choice, so nothing of a function's load can go below this. `npm run bench`
 * bundles it exactly as the stack bundles the functions and reports each function's module load against
 * its own (./measure-cold.ts).
 */
const { LTS_TABLE_NAME } = config();

export const handler = async () => ({
  statusCode: 200,
  body: JSON.stringify({ table: LTS_TABLE_NAME, client: typeof dynamo().send, entities: Object.keys(store().entities).length }),
});
