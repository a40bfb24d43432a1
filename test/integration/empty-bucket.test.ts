/**
 * The stack's bucket-emptying custom resource: on Delete the files bucket ends up empty and
 * CloudFormation gets SUCCESS at its response URL; Create and Update leave the files alone.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as EmptyBucket from '#functions/stack/empty-bucket.js';
import { useLocalEnv } from '../support/env.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startFilesBackend } from '../support/s3rver.js';

let files: Awaited<ReturnType<typeof startFilesBackend>>;
let cloudFormation: Receiver;
let handler: (typeof EmptyBucket)['handler'];

const context = { logStreamName: 'stream-1' } as Context;
const event = (RequestType: 'Create' | 'Update' | 'Delete', n: number) =>
  ({
    RequestType,
    ResponseURL: `${cloudFormation.url}/answer-${n}`,
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/api-platform-dev/1',
    RequestId: `request-${n}`,
    LogicalResourceId: 'FilesBucketEmptier',
    ResourceType: 'Custom::EmptyBucket',
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:emptyBucket',
    ResourceProperties: { ServiceToken: 'x', BucketName: 'files' },
    ...(RequestType === 'Create' ? {} : { PhysicalResourceId: 'empty-bucket-FilesBucketEmptier' }),
  }) as unknown as CloudFormationCustomResourceEvent;

beforeAll(async () => {
  [files, cloudFormation] = await Promise.all([startFilesBackend(), startReceiver()]);
  useLocalEnv({ s3: files.endpoint, bucket: files.bucket });
  ({ handler } = await import('#functions/stack/empty-bucket.js'));
  for (let i = 0; i < 25; i++) {
    await files.client.send(new PutObjectCommand({ Bucket: files.bucket, Key: `tasks/t${i % 5}/file-${i}.txt`, Body: `file ${i}` }));
  }
});
afterAll(async () => {
  await Promise.all([files?.close(), cloudFormation?.close()]);
});

describe('Custom::EmptyBucket', () => {
  it('leaves the files alone on Create and Update, and answers SUCCESS', async () => {
    await handler(event('Create', 1), context);
    await handler(event('Update', 2), context);
    expect(await files.files.list('')).toHaveLength(25);
    const answers = cloudFormation.requests.map((r) => ({ path: r.path, method: r.method, ...JSON.parse(r.body.toString()) }));
    expect(answers).toMatchObject([
      { path: '/answer-1', method: 'PUT', Status: 'SUCCESS', RequestId: 'request-1', LogicalResourceId: 'FilesBucketEmptier' },
      { path: '/answer-2', method: 'PUT', Status: 'SUCCESS', RequestId: 'request-2', PhysicalResourceId: 'empty-bucket-FilesBucketEmptier' },
    ]);
  });

  it('empties the bucket on Delete, then answers SUCCESS', async () => {
    await handler(event('Delete', 3), context);
    expect(await files.files.list('')).toHaveLength(0);
    expect(JSON.parse(cloudFormation.requests.at(-1)!.body.toString())).toMatchObject({ Status: 'SUCCESS', RequestId: 'request-3' });
  });
});
