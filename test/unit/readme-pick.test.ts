import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '#lib/local/dynamodb.ts';

/**
 * The README lab day's helpers (its first `sh lab-day` block) when the service is not where `LTS_URL`
 * says: `pick` answers an empty or non-JSON answer with one line naming the address, never Node's stack
 * trace. (The day itself runs in test/integration/readme-walkthrough.test.ts.)
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const helpers = README.match(/^```sh lab-day\n([\s\S]*?)^```$/m)![1]!;

/** Runs `command` in bash after the helpers, as a reader's shell would: with LTS_URL and LTS_KEY set. */
function shell(url: string, command: string) {
  const run = spawnSync('bash', ['--norc', '-c', `${helpers}\n${command}`], {
    env: { PATH: process.env.PATH!, LTS_URL: url, LTS_KEY: 'key-0123456789abcdef' },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr.split('\n').filter(Boolean) };
}

describe("the lab day's pick", () => {
  it('defines the helpers first', () => {
    expect(helpers).toMatch(/^pick\(\) \{/m);
    expect(helpers).toMatch(/^get\(\) +\{/m);
  });

  it('prints the value asked for (the checks below can tell)', () => {
    expect(shell('http://localhost:3100', `echo '{"data":[{"id":"7"}]}' | pick 'd.data[0].id'`)).toEqual({ code: 0, out: '7\n', err: [] });
  });

  it('on no answer: one line naming LTS_URL, exit 1', () => {
    expect(shell('http://localhost:3100', `printf '' | pick 'd.data'`)).toEqual({
      code: 1,
      out: '',
      err: ['pick: no answer (is the service at http://localhost:3100? set LTS_URL)'],
    });
  });

  it('on an answer that is not JSON: one line quoting its start, exit 1', () => {
    const run = shell('http://localhost:3100', `printf '<html><body>Bad Gateway</body></html>\\n' | pick 'd.data'`);
    expect(run).toEqual({
      code: 1,
      out: '',
      err: ['pick: the answer is not JSON: <html><body>Bad Gateway</body></html> (is the service at http://localhost:3100? set LTS_URL)'],
    });
  });

  it('with nothing listening at LTS_URL: curl says why, pick one line, and no stack trace', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = shell(url, `get samples | pick 'd.data'`);
    expect(run.code).toBe(1);
    expect(run.err).toEqual([expect.stringMatching(/^curl: \(7\) /), `pick: no answer (is the service at ${url}? set LTS_URL)`]);
  });
});
