/**
 * A queue consumer as a Lambda handler: parses each record's JSON body with a schema, handles the
 * records of a batch one by one and reports the ones that failed as `batchItemFailures`, so only
 * those are delivered again. A malformed message can never succeed: it is reported to `onPoison`
 * and acknowledged instead of going round until the dead-letter queue.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import type { Logger } from '../../kernel/log.js';

export interface MessageContext {
  record: SQSRecord;
  /** 1 on first delivery. */
  receiveCount: number;
  /** When the invocation ends (epoch ms), from Lambda's context; undefined without one. */
  deadlineMs?: number;
  log: Logger;
}

export interface ConsumerOptions<S extends z.ZodType> {
  schema: S;
  log: () => Logger;
  handle: (message: z.output<S>, ctx: MessageContext) => Promise<void>;
  onPoison?: (record: SQSRecord, problem: string) => Promise<void>;
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  /** Seconds before the next delivery, by the receive count of the delivery that failed (1 = first). */
  delaySeconds(receiveCount: number): number;
  /** Changes the message's visibility timeout (SQS ChangeMessageVisibility). */
  postpone(record: SQSRecord, seconds: number): Promise<void>;
}

/** 10 s after the first failure, then three times longer each time, at most 15 minutes. */
export const backoff = (receiveCount: number) => Math.min(900, 10 * 3 ** Math.max(0, receiveCount - 1));

export function sqsConsumer<S extends z.ZodType>(opts: ConsumerOptions<S>) {
  return async (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> => {
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
        const deadlineMs = context?.getRemainingTimeInMillis ? Date.now() + context.getRemainingTimeInMillis() : undefined;
        await opts.handle(parsed.data, { record, receiveCount, log, deadlineMs });
      } catch (err) {
        const delaySeconds = opts.retry?.delaySeconds(receiveCount);
        log.warn('message failed, will be delivered again', { error: err, delaySeconds });
        if (opts.retry && delaySeconds !== undefined) {
          // Without it the message still comes back, only later (after the visibility timeout).
          await opts.retry.postpone(record, delaySeconds).catch((e: unknown) => log.warn('could not put off the next delivery', { error: e }));
        }
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
