import { config } from '#lib/config.ts';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** One JSON line per entry on stdout, as CloudWatch and local tools read it. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] < levels[config().LOG_LEVEL]) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}
