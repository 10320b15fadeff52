/**
 * `npm run bench`: the service against a floor, in the same run, on the same DynamoDB Local.
 *
 * The floor (./floor/) is a bare node:http server doing the least DynamoDB work that gives the same
 * answer on the service's design (raw @aws-sdk/lib-dynamodb commands, no middy, no ElectroDB, no zod).
 * Each scenario sends the same requests to both, in interleaved batches, and reports service ÷ floor
 * ratios of p50 latency, CPU time per request and, for creates, creates per second — absolute times on a
 * shared machine mean little, the ratios are what to compare across runs. Every read is also sent to the
 * physical floor (./floor/physical.ts: the least DynamoDB work for the answer whatever the layout, one
 * round trip over a read partition of its own, recorded after seeding), a third side in the same rounds.
 * Every side reports the capacity units its DynamoDB calls consumed (X-DynamoDB-Capacity), and the bench
 * prints them per request. The issue's targets are marked PASS/FAIL for information only.
 *
 * BENCH_ITERATIONS (default 48): measured requests per side per read scenario, at least (create windows scale with it).
 * BENCH_COLD_RUNS (default 7): loads of each function's bundle in the cold-start measurement (./cold/).
 * BENCH_ONLY=cold: the cold starts alone; they replace the published ones, the scenarios' results stay.
 * BENCH_ONLY=text: only the scenarios whose name contains it (or any of several texts separated by `|`), no cold starts, nothing published (e.g. `POST`: the writes).
 * BENCH_CPU_PROF=dir: each server writes a V8 CPU profile of each scenario's measured rounds, dir/<service|floor>/<scenario>.cpuprofile (where a ratio's CPU goes).
 * BENCH_JSON=path: also write the results as JSON there. BENCH_OUT (default `bench`): where the published
 * results go (results.json, results.md, ratios.svg; see ./publish.ts).
 */
import { cpus, loadavg } from 'node:os';
import { startDynamoLocal } from '#lib/local/dynamodb.ts';
import { measureColdStarts } from './cold/measure-cold.ts';
import { HttpClient } from './http-client.ts';
import { measure, type Side } from './measure.ts';
import { options } from './options.ts';
import { startServerProcess, type Role, type ServerEnv } from './processes.ts';
import { documentClient } from './floor/db.ts';
import { recordReads } from './floor/physical.ts';
import { publish, publishColdStarts } from './publish.ts';
import { judge, printColdStarts, printReport, writeJson, type ScenarioResult } from './report.ts';
import { childrenReader } from './children.ts';
import { LAB_SIZE, LAB_WORK, labRequests, labWorkRequests, LIMBER_CREATORS, ONGOING_PLATES, scenarios, STATE_CHANGE_WELLS } from './scenarios.ts';
import { compareAnswers, compareWrites } from './parity.ts';
import { requestBookCopier } from './seed-books.ts';
import { seedOngoingPlates } from './seed-ongoing.ts';
import { seedWork } from './seed-work.ts';
import { seed, seedSamplesInBulk, stampDestinations, WALK_RECORDS } from './seed.ts';

const API_KEY = 'bench-key-0123456789abcdef';
const runId = Date.now().toString(36);
const log = (line: string) => console.log(`[bench] ${line}`);
const started = performance.now();
/** Where each side's profile of a scenario goes, when BENCH_CPU_PROF asks for them: a file name from the scenario's. */
const profileFile = (scenario: string) =>
  options.cpuProfileDir ? (role: Role) => `${options.cpuProfileDir}/${role}/${scenario.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80)}.cpuprofile` : undefined;

// Cold starts first, while nothing else of the bench runs (no DynamoDB Local, no servers).
const coldStarts = options.scenarios === undefined ? await measureColdStarts(options.coldRuns, log) : undefined;
if (coldStarts) printColdStarts(coldStarts);
if (options.coldOnly && coldStarts) {
  publishColdStarts(options.outDir, coldStarts, {
    coldRunAt: new Date().toISOString(),
    coldNode: process.version,
    cores: cpus().length,
    coldRuns: options.coldRuns,
  });
  log(`cold starts published in ${options.outDir}/ (results.json, results.md, ratios.svg), the scenarios' results as they were`);
} else await benchScenarios();

async function benchScenarios(): Promise<void> {
  const dynamo = await startDynamoLocal();
  const env: ServerEnv = { BENCH_DYNAMODB_ENDPOINT: dynamo.endpoint, BENCH_SERVICE_TABLE: 'lts', BENCH_API_KEY: API_KEY };
  const headers = { 'X-Sequencescape-Client-Id': API_KEY, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' };
  let current: Side[] = [];
  const cleanups: (() => void)[] = [];
  /** Stops the servers under way, if any, and closes their clients. */
  const stopSides = async () => {
    const stopping = current;
    current = [];
    for (const side of stopping) side.client.close();
    await Promise.all(stopping.map((side) => side.server.stop()));
  };
  /**
   * Fresh servers: the service first (on a new table it creates the table, which the floors read and the
   * design floor writes too), then the design floor and, if asked, the physical floor, each with a client.
   */
  const freshSides = async (physical = false): Promise<Side[]> => {
    await stopSides();
    for (const role of ['service', 'floor', ...(physical ? ['physical' as const] : [])] as const) {
      const server = await startServerProcess(role, env);
      current.push({ role: server.role, server, client: new HttpClient(server.url, headers) });
    }
    return current;
  };
  let stopping: Promise<void> | undefined;
  /** Stops the servers and DynamoDB Local (a Java process that would otherwise outlive an interrupted bench). */
  const shutdown = () =>
    (stopping ??= (async () => {
      for (const cleanup of cleanups) cleanup();
      await stopSides();
      await dynamo.stop();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void shutdown().finally(() => process.exit(130)));
  }
  try {
    let sides = await freshSides();
    const client = sides[0]!.client;
    log(`DynamoDB Local at ${dynamo.endpoint}; service at ${sides[0]!.server.url}; floor at ${sides[1]!.server.url}`);

    const seeded = await seed(client, runId, log, stampDestinations(labRequests(options.iterations)));
    await seedSamplesInBulk(dynamo.endpoint, env.BENCH_SERVICE_TABLE, seeded.sampleId, WALK_RECORDS, log);
    const wanted = options.runs;
    const plate96 = (await client.json('GET', `/plates/${seeded.plate96Id}`)).data.attributes.uuid as string;
    const filled = { 384: { id: Number(seeded.plateId), uuid: seeded.lab.plate }, 96: { id: Number(seeded.plate96Id), uuid: plate96 } };
    const counts = labWorkRequests(options.iterations);
    const copyBook = requestBookCopier(dynamo.endpoint, env.BENCH_SERVICE_TABLE);
    seeded.work = await seedWork(
      client,
      filled,
      {
        page: wanted(LAB_WORK.page),
        collection: wanted(LAB_WORK.collection),
        stateChange: wanted(LAB_WORK.stateChange(STATE_CHANGE_WELLS)),
        collectionRequests: counts.collection,
        stateChangeRequests: counts.stateChange,
        stateChangeWells: STATE_CHANGE_WELLS,
        stampCreation: wanted(LIMBER_CREATORS.stamp),
        tubeCreation: wanted(LIMBER_CREATORS.tubes) || wanted(LAB_SIZE.tubes),
        rackSplit: wanted(LAB_SIZE.rackSplit),
      },
      copyBook,
      log,
    );
    if (wanted(ONGOING_PLATES))
      seeded.ongoing = await seedOngoingPlates(client, dynamo.endpoint, env.BENCH_SERVICE_TABLE, filled[96].id, Number(seeded.study), copyBook, log);
    const results: ScenarioResult[] = [];
    const reader = childrenReader(dynamo.endpoint, env.BENCH_SERVICE_TABLE);
    cleanups.push(reader.close);
    const chosen = scenarios(seeded, options.iterations, runId, reader.childrenOf).filter((s) => options.runs(s.name));
    // The physical floor's read partitions: what the design floor reads for each read request, recorded
    // once everything is seeded (reads are compared and measured before any write scenario changes the data).
    const reads = chosen.filter((s) => s.compare);
    if (reads.length > 0) {
      const t0 = performance.now();
      const doc = documentClient(dynamo.endpoint);
      const recorded = await recordReads(
        doc,
        env.BENCH_SERVICE_TABLE,
        reads.map((s) => s.send),
      );
      doc.destroy();
      log(`recorded the physical floor's read partitions of ${recorded.length} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    for (const scenario of chosen) {
      // Each scenario on servers that have served nothing else, as a deployed function serves only its own
      // route: in one process after the others, a write's CPU moved by up to 0.6× the floor's
      // (docs/decisions.md, "Measuring speed"). Its warm-up batch warms them. Reads also on the physical floor.
      sides = await freshSides(scenario.compare);
      const difference = scenario.compare ? ((await compareAnswers(sides, scenario)) ?? 'same') : undefined;
      const t0 = performance.now();
      const [service, floor, physical] = await measure(sides, scenario.plan, scenario.send, profileFile(scenario.name));
      // A write's floor is only a floor if it writes the same items: the last unit each side sent, compared.
      const writes = scenario.transactions ? ((await compareWrites(sides, scenario.transactions)) ?? 'same') : undefined;
      const result = judge(scenario.name, scenario.target, service!, floor!, difference ?? writes, physical);
      results.push(result);
      const requests = [service, floor, physical].flatMap((side) => (side ? [side.requests] : [])).join('+');
      log(`${scenario.name}: ${requests} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s — ${result.verdict}`);
    }

    const context = [
      `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; BENCH_ITERATIONS=${options.iterations}; ` + `whole run ${((performance.now() - started) / 1000).toFixed(0)} s`,
    ];
    printReport(results, context);
    const meta = { runAt: new Date().toISOString(), node: process.version, cores: cpus().length, iterations: options.iterations, coldRuns: options.coldRuns };
    if (coldStarts) {
      publish(options.outDir, results, coldStarts, meta);
      log(`results published in ${options.outDir}/ (results.json, results.md, ratios.svg)`);
    }
    if (options.jsonPath) {
      writeJson(options.jsonPath, { ...meta, results, coldStarts });
      log(`results written to ${options.jsonPath}`);
    }
  } finally {
    await shutdown();
  }
}
