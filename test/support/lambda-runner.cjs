'use strict';
/**
 * One Lambda container, as the Node.js runtime runs a function: it `require`s `index.js` of the task root
 * (LAMBDA_TASK_ROOT, the unpacked asset: the bundle, its source map, its assets) as CommonJS and calls
 * `handler(event, context)` once per invocation, in one long-lived process. Plain JavaScript, run by a bare
 * `node` (no loader, no project code): what it loads is the bundle, and what the bundle finds on its own
 * (./deployed-functions.ts sets the environment and the runtime's NODE_PATH).
 *
 * Invocations arrive over the IPC channel as `{ id, event }` and are answered `{ id, result }` or
 * `{ id, error }`, one at a time as Lambda does. `{ id, resolve }` answers where `require(resolve)` would
 * find a module from the task root (or null): what the bundle can reach besides itself.
 */
const { join } = require('node:path');
const { randomUUID } = require('node:crypto');

const taskRoot = process.env.LAMBDA_TASK_ROOT;
const timeoutMs = Number(process.env.LTS_ARTIFACT_TIMEOUT_MS);
const { handler } = require(join(taskRoot, 'index.js'));

/** The context the runtime hands the handler (the fields the aws-lambda types declare). */
function contextOf(requestId) {
  const deadline = Date.now() + timeoutMs;
  const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${name}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function where(name) {
  try {
    return require.resolve(name, { paths: [taskRoot] });
  } catch {
    return null;
  }
}

let queue = Promise.resolve();
process.on('message', (message) => {
  queue = queue.then(async () => {
    if (message.resolve !== undefined) return process.send({ id: message.id, result: where(message.resolve) });
    try {
      const result = await handler(message.event, contextOf(randomUUID()));
      process.send({ id: message.id, result: result === undefined ? null : result });
    } catch (error) {
      process.send({ id: message.id, error: { name: error?.name, message: String(error?.message ?? error) } });
    }
  });
});
process.send({ ready: true });
