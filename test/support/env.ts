/** Points the service's configuration at local test backends (before the first `config()` call). */
export function useLocalEnv(vars: { dynamodb?: string; s3?: string; sqs?: string; table?: string; bucket?: string } & Record<string, string | undefined>) {
  const { dynamodb, s3, sqs, table, bucket, ...rest } = vars;
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    STATE_TABLE: table ?? 'state',
    FILES_BUCKET: bucket ?? 'files',
    IMPORT_QUEUE: 'import',
    PROCESS_QUEUE: 'process',
    EXPORT_QUEUE: 'export',
    OPERATIONS_QUEUE: 'operations',
    WEBHOOKS_QUEUE: 'webhooks',
    LOG_LEVEL: 'silent',
    // Local use, as `npm start`: the Google APIs take any token. Tests of enforcement set it.
    GOOGLE_AUTH_MODE: 'open',
    ...(dynamodb ? { AWS_ENDPOINT_URL_DYNAMODB: dynamodb } : {}),
    ...(s3 ? { AWS_ENDPOINT_URL_S3: s3 } : {}),
    ...(sqs ? { AWS_ENDPOINT_URL_SQS: sqs } : {}),
    ...rest,
  });
}
