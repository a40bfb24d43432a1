/**
 * The derivation of a function's AWS actions from its code (scripts/ci/aws-calls.ts): the SDK exports'
 * IAM names, a small project under test/fixtures/ci-roles/project (a port and its adapter, a shorthand
 * registry, lib-storage and presigned posts, the user's own credentials, an unknown command), and two
 * functions of this service whose roles depend on the derivation being per method, not per module.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionsOf, deriveAwsCalls } from '../../scripts/ci/aws-calls.js';

const root = path.resolve(import.meta.dirname, '../..');
const project = path.join(root, 'test/fixtures/ci-roles/project');

describe('IAM names of SDK exports', () => {
  it('maps document-client commands, S3 reads and multipart writes, batches, invokes and socket posts', () => {
    expect(actionsOf('lib-dynamodb', 'GetCommand')).toEqual(['dynamodb:GetItem']);
    expect(actionsOf('lib-dynamodb', 'BatchWriteCommand')).toEqual(['dynamodb:BatchWriteItem']);
    expect(actionsOf('client-dynamodb', 'GetItemCommand')).toEqual(['dynamodb:GetItem']);
    expect(actionsOf('client-s3', 'HeadObjectCommand')).toEqual(['s3:GetObject']);
    expect(actionsOf('client-s3', 'ListObjectsV2Command')).toEqual(['s3:ListBucket']);
    expect(actionsOf('client-s3', 'UploadPartCopyCommand')).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(actionsOf('client-s3', 'DeleteObjectsCommand')).toEqual(['s3:DeleteObject']);
    expect(actionsOf('client-sqs', 'SendMessageBatchCommand')).toEqual(['sqs:SendMessage']);
    expect(actionsOf('client-lambda', 'InvokeCommand')).toEqual(['lambda:InvokeFunction']);
    expect(actionsOf('client-apigatewaymanagementapi', 'PostToConnectionCommand')).toEqual(['execute-api:ManageConnections']);
    expect(actionsOf('lib-storage', 'Upload')).toEqual(['s3:PutObject', 's3:AbortMultipartUpload']);
    expect(actionsOf('s3-presigned-post', 'createPresignedPost')).toEqual(['s3:PutObject']);
    expect(actionsOf('client-s3', 'S3Client')).toBeUndefined();
    // A document-client command without a known table action is reported, not guessed.
    expect(actionsOf('lib-dynamodb', 'ExecuteStatementCommand')).toEqual([]);
  });
});

describe('derivation on a small project', () => {
  const entries = ['reader', 'registry', 'uploads', 'others', 'sender', 'aggregated'].map((id) => ({ id, handler: `functions/${id}.handler` }));
  const derived = deriveAwsCalls(project, [...entries, { id: 'missing', handler: 'functions/none.handler' }]);
  const actions = (id: string) => [...(derived.actions.get(id)?.keys() ?? [])].sort();

  it('follows a call through a port to the one adapter method it reaches', () => {
    expect(actions('reader')).toEqual(['dynamodb:GetItem']);
    expect(derived.actions.get('reader')!.get('dynamodb:GetItem')).toMatch(/^handler → .*DynamoStore\.get → lib\/dynamo\.ts:\d+$/);
  });

  it('reaches an adapter that fits its port without saying `implements`', () => {
    expect(actions('sender')).toEqual(['sqs:SendMessage']);
  });

  it('follows functions kept in object literals by shorthand, and leaves out requests signed with the user’s keys', () => {
    expect(actions('registry')).toEqual(['dynamodb:PutItem']);
  });

  it('names the methods of aggregated clients as their commands', () => {
    expect(actions('aggregated')).toEqual(['dynamodb:Query', 's3:GetObject']);
  });

  it('counts lib-storage uploads and presigned posts as puts', () => {
    expect(actions('uploads')).toEqual(['s3:AbortMultipartUpload', 's3:PutObject']);
  });

  it('reports an unverified user-credentials claim, an unknown command and a missing handler', () => {
    expect(actions('others')).toEqual([]);
    expect(derived.problems).toEqual(
      expect.arrayContaining([
        'missing: handler functions/none.handler not found in the sources',
        expect.stringMatching(/^lib\/false-claim\.ts:\d+: says @aws-credentials user but makes S3Client without credentials$/),
        expect.stringMatching(/^lib\/unknown\.ts:\d+: ExecuteStatementCommand of @aws-sdk\/lib-dynamodb has no IAM action/),
      ]),
    );
    expect(derived.problems).toHaveLength(3);
  });
});

describe('derivation on this service', () => {
  it('gives the socket disconnect only its delete and the count of unsubscribed sockets, and the download function no write (its key is read apart)', () => {
    const { actions, problems } = deriveAwsCalls(root, [
      { id: 'socketDisconnect', handler: 'functions/events/disconnect.handler' },
      { id: 'filesDownload', handler: 'functions/files/download.handler' },
    ]);
    expect(problems).toEqual([]);
    expect([...actions.get('socketDisconnect')!.keys()].sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:UpdateItem']);
    expect([...actions.get('filesDownload')!.keys()].sort()).toEqual(['dynamodb:GetItem', 's3:GetObject']);
  }, 600_000);
});
