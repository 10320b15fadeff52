import { randomUUID } from 'node:crypto';
import { processMessage } from '#lib/events/inbound.ts';
import type { ApiResponse } from '#lib/jsonapi/request.ts';
import { errorResponse } from '#lib/jsonapi/error-response.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { MessageContext } from '#lib/jsonapi/message.ts';

/**
 * `npm run admin -- submit <file>`: runs a file of inbound messages (contract §4) through the code the
 * inbound queue's consumer runs (`processMessage`: the message entry, then the outcome event), one after
 * another in file order.
 */

/** A file that holds no messages to run: unreadable, or a JSON array that does not parse. */
export class MessageFileError extends Error {}

/** A message of a file, numbered from 1 (its position in a JSON array, its line in NDJSON), or why it is no JSON. */
type Entry = { number: number; message: unknown } | { number: number; notJson: string };

/**
 * The messages of a file: a JSON array of messages, a single JSON message, or NDJSON (one message per
 * line; blank lines are skipped).
 */
export function readMessages(text: string): Entry[] {
  try {
    const whole: unknown = JSON.parse(text);
    return (Array.isArray(whole) ? whole : [whole]).map((message, i) => ({ number: i + 1, message }));
  } catch (error) {
    if (text.trimStart().startsWith('[')) throw new MessageFileError(`the file starts like a JSON array but is not valid JSON: ${(error as Error).message}`);
  }
  return text.split('\n').flatMap((line, i): Entry[] => {
    if (line.trim() === '') return [];
    try {
      return [{ number: i + 1, message: JSON.parse(line) }];
    } catch (error) {
      return [{ number: i + 1, notJson: (error as Error).message }];
    }
  });
}

export interface SubmitResult {
  number: number;
  response: ApiResponse;
}

/**
 * Runs every message of the file's text, in order, each as one delivery (a message without an
 * idempotency_key gets a fresh one). A line that is no JSON gets the 400 a malformed message gets: here
 * there is no queue to send it back to.
 */
export async function submitMessages(text: string, context: Omit<MessageContext, 'requestId'>): Promise<SubmitResult[]> {
  const results: SubmitResult[] = [];
  for (const entry of readMessages(text)) {
    const deliveryId = `submit-${randomUUID()}`;
    const response =
      'notJson' in entry
        ? errorResponse(errors.invalidMessage('', `the message is not JSON: ${entry.notJson}`), deliveryId)
        : (await processMessage(entry.message, deliveryId, context)).response;
    results.push({ number: entry.number, response });
  }
  return results;
}

interface ResultDocument {
  data?: { type: string; id: string } | { type: string; id: string }[] | null;
  errors?: { code: string; detail: string; source?: { pointer?: string; header?: string; parameter?: string } }[];
}

/**
 * One line per message: `<number>\t<status>\t<what>`, where `what` is the Location of a created record, the
 * records of any other success (`type/id`), or each error (`code at <source>: detail`).
 */
export function resultLine({ number, response }: SubmitResult): string {
  const document = JSON.parse(response.body ?? '{}') as ResultDocument;
  const what = document.errors
    ? document.errors
        .map((e) => {
          const at = e.source?.pointer ?? e.source?.header ?? e.source?.parameter;
          return `${e.code}${at ? ` at ${at}` : ''}: ${e.detail}`;
        })
        .join('; ')
    : (response.headers.Location ??
      ([] as { type: string; id: string }[])
        .concat(document.data ?? [])
        .map((r) => `${r.type}/${r.id}`)
        .join(' '));
  return `${number}\t${response.status}\t${what}`;
}

export const failed = (result: SubmitResult): boolean => result.response.status >= 400;
