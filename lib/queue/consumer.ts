/**
 * A queue consumer as a Lambda handler: parses each record's JSON body with a schema, handles the
 * records of a batch one by one and reports the ones that failed as `batchItemFailures`, so only
 * those are delivered again. A malformed message can never succeed: it is reported to `onPoison`
 * and acknowledged instead of going round until the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import type { Logger } from '../log.js';

export interface MessageContext {
  record: SQSRecord;
  /** 1 on first delivery. */
  receiveCount: number;
  log: Logger;
}

export interface ConsumerOptions<S extends z.ZodType> {
  schema: S;
  log: () => Logger;
  handle: (message: z.output<S>, ctx: MessageContext) => Promise<void>;
  onPoison?: (record: SQSRecord, problem: string) => Promise<void>;
}

export function sqsConsumer<S extends z.ZodType>(opts: ConsumerOptions<S>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records ?? []) {
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      const log = opts.log().child({ messageId: record.messageId, receiveCount });
      let parsed: z.ZodSafeParseResult<z.output<S>>;
      try {
        parsed = opts.schema.safeParse(JSON.parse(record.body));
      } catch {
        parsed = { success: false } as z.ZodSafeParseResult<z.output<S>>;
      }
      if (!parsed.success) {
        log.error('malformed message dropped', { body: record.body.slice(0, 500) });
        await opts.onPoison?.(record, 'malformed message');
        continue;
      }
      try {
        await opts.handle(parsed.data, { record, receiveCount, log });
      } catch (err) {
        log.warn('message failed, will be delivered again', { error: err });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
