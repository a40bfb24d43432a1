/**
 * The list prices the capacity model uses: one region, one date, every figure in US dollars per the unit
 * named beside it. The first paid tier of each (free tiers and volume discounts left out, so the model
 * errs high for a small account and a little high for a very large one). Update the figures and the date
 * together from the AWS pricing pages; the docs' generated block then changes and `npm run ci:capacity`
 * asks for `npm run capacity -- --write-docs`.
 */
export const PRICES = {
  region: 'us-east-1',
  asOf: '2025-06 (AWS list prices; DynamoDB on-demand after its November 2024 reduction)',
  lambda: {
    /** Per GB-second of duration, by architecture. */
    gbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 } as Record<string, number>,
    perMillionRequests: 0.2,
  },
  apiGateway: {
    /** HTTP API, per million requests (first 300 million a month; a request is counted per 512 KB). */
    httpPerMillion: 1.0,
    /** WebSocket API, per million messages (first billion a month; a message is counted per 32 KB). */
    websocketMessagesPerMillion: 1.0,
    websocketConnectionMinutesPerMillion: 0.25,
  },
  dynamodb: {
    /** On-demand, Standard table class. */
    writeRequestUnitsPerMillion: 0.625,
    readRequestUnitsPerMillion: 0.125,
  },
  sqs: {
    /** Standard queues, per million requests (each 64 KB of a payload is one request). */
    standardPerMillion: 0.4,
  },
  s3: {
    /** S3 Standard, per 1,000 requests. */
    putCopyPostListPerThousand: 0.005,
    getSelectOtherPerThousand: 0.0004,
  },
  cloudwatch: {
    logsIngestedPerGb: 0.5,
    /** Standard-resolution alarm, per metric it evaluates, per month. */
    alarmMetricPerMonth: 0.1,
  },
  xray: {
    tracesRecordedPerMillion: 5.0,
  },
} as const;

export type Prices = typeof PRICES;

export const HOURS_PER_MONTH = 730;
