import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { startLocalService } from '#lib/local/service.ts';
import { createApiKey, ensureApiKey, revokeApiKey } from '#lib/store/api-keys.ts';

/** `npm start`: the service on this machine. Configuration (README "Configuration"), parsed once. */
const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    LTS_DATA_DIR: z.string().min(1).default('.lts'),
    LTS_IN_MEMORY: z.enum(['0', '1', 'true', 'false', '']).default('').transform((v) => v === '1' || v === 'true'),
    LTS_DYNAMODB_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    LTS_DEV_API_KEY: z.string().min(1).optional(),
    LTS_DEV_READ_API_KEY: z.string().min(1).optional(),
  })
  .parse(process.env);

const dataDir = resolve(env.LTS_DATA_DIR);
mkdirSync(dataDir, { recursive: true });
const service = await startLocalService({
  port: env.PORT,
  ...(env.LTS_DYNAMODB_PORT ? { dynamoPort: env.LTS_DYNAMODB_PORT } : {}),
  ...(env.LTS_IN_MEMORY ? {} : { dataDir: join(dataDir, 'dynamodb') }),
});

// The admin command line finds the running DynamoDB Local through this file.
const endpointFile = join(dataDir, 'endpoint.json');
writeFileSync(endpointFile, JSON.stringify({ dynamodb: service.dynamo.endpoint, pid: process.pid }));

let devKey = env.LTS_DEV_API_KEY;
if (devKey) await ensureApiKey('dev-write', 'write', devKey);
else {
  await revokeApiKey('dev-write');
  devKey = await createApiKey('dev-write', 'write');
}
if (env.LTS_DEV_READ_API_KEY) await ensureApiKey('dev-read', 'read', env.LTS_DEV_READ_API_KEY);

console.log(`Laboratory Tracking Service (DynamoDB Local at ${service.dynamo.endpoint}, data ${env.LTS_IN_MEMORY ? 'in memory' : `in ${join(dataDir, 'dynamodb')}`})`);
console.log(`Development API key (write): ${devKey}`);
console.log(`  curl -H 'X-Sequencescape-Client-Id: ${devKey}' ${service.url}/api/v2/samples`);
console.log(`listening on ${service.url}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  rmSync(endpointFile, { force: true });
  await service.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
