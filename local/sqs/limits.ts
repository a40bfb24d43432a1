/** The limits and attribute defaults of the local SQS server (local/sqs/), as documented for SQS standard queues. */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_MESSAGE_ATTRIBUTES = 10;
export const MAX_VISIBILITY_TIMEOUT = 43_200;
export const MAX_DELAY_SECONDS = 900;
export const MAX_WAIT_TIME_SECONDS = 20;
/** SQS raised the maximum message (and batch) size to 1 MiB in 2025; it is also the new default. */
export const MAX_MESSAGE_SIZE = 1_048_576;
/** A request body larger than this is refused before parsing (a full batch, JSON-escaped, fits easily). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** Delay between a change and the snapshot write; changes within it are written together. */
export const PERSIST_DEBOUNCE_MS = 100;
/** setTimeout's largest delay; longer waits are re-armed. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Settable integer attributes: [min, max, default]. */
export const INTEGER_ATTRIBUTES: Record<string, readonly [number, number, number]> = {
  DelaySeconds: [0, MAX_DELAY_SECONDS, 0],
  MaximumMessageSize: [1024, MAX_MESSAGE_SIZE, MAX_MESSAGE_SIZE],
  MessageRetentionPeriod: [60, 1_209_600, 345_600],
  ReceiveMessageWaitTimeSeconds: [0, MAX_WAIT_TIME_SECONDS, 0],
  VisibilityTimeout: [0, MAX_VISIBILITY_TIMEOUT, 30],
  KmsDataKeyReusePeriodSeconds: [60, 86_400, 300],
};
/** Settable attributes kept as given (we do not enforce policies or encrypt anything). */
export const FREEFORM_ATTRIBUTES = new Set(['Policy', 'RedriveAllowPolicy', 'KmsMasterKeyId', 'SqsManagedSseEnabled']);
/** Computed attributes: readable, never settable. */
export const READ_ONLY_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
] as const;
