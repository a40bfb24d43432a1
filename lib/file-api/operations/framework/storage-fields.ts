/**
 * Argument schemas of the storage imports and exports (lib/file-api/operations/import/*, export/*): the
 * connection of each service, object names and prefixes, the one-of rule for `name`/`name_prefix`.
 */
import * as z from 'zod';
import { objectNameProblem } from '../../../adapters/file-store/names.js';
import { AZURE_ACCOUNT_NAME } from '../../../adapters/user-storage/port.js';
import { common, filename } from './fields.js';



export const httpUrl = (what: string) =>
  z
    .string()
    .url(`must be an absolute http(s) URL of the ${what}`)
    .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL');

export const secret = (what: string) => z.string().min(1, `the ${what} is required`).max(8192);
/** An object name or prefix in the user's storage: no `.`/`..` segment, no control character (lib/adapters/file-store/names.ts). */
const objectNameRule = (isPrefix: boolean) => (name: string, ctx: z.RefinementCtx) => {
  const problem = objectNameProblem(name, isPrefix);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};
export const objectName = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').superRefine(objectNameRule(false));
export const prefix = z.string().max(1024, 'must be at most 1024 characters').superRefine(objectNameRule(true));
/** Metadata and tag values: strings (numbers and booleans are written as text). */
export const stringMap = (keys: z.ZodString) =>
  z.record(keys, z.union([z.string(), z.number(), z.boolean()]).transform(String));

/** One of `name` / `prefix` at most (`prefix` is `<name>_prefix` unless named); `need` makes one of them required. */
export function namingRule(nameField: string, need: boolean, prefixField = `${nameField}_prefix`) {
  return (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (v[nameField] !== undefined && v[prefixField] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [prefixField], message: `give either ${nameField} or ${prefixField}, not both` });
    } else if (need && v[nameField] === undefined && v[prefixField] === undefined) {
      ctx.addIssue({ code: 'custom', path: [nameField], message: `give ${nameField} (one object) or ${prefixField} (every object under it)` });
    }
  };
}

// S3 and S3-compatible services -------------------------------------------------------------------

export const S3_ACLS = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
] as const;
export const S3_SERVER_SIDE_ENCRYPTION = ['AES256', 'aws:kms', 'aws:kms:dsse'] as const;

export const s3Connection = {
  bucket: z
    .string()
    .min(1, 'the bucket name is required')
    .max(255)
    .refine((b) => !/[/\s]/.test(b) && !/^\.+$/.test(b), 'must be a bucket name, without slashes or spaces, not only dots'),
  region: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a region name such as eu-central-1'),
  endpoint: httpUrl('S3-compatible API').optional(),
  access_key_id: secret('access key id'),
  secret_access_key: secret('secret access key'),
  session_token: secret('session token').optional(),
};

export const importS3Args = z
  .looseObject({ ...common, ...s3Connection, key: objectName.optional(), key_prefix: prefix.optional(), filename: filename.optional() })
  .superRefine(namingRule('key', true));

export const exportS3Args = z
  .looseObject({
    ...common,
    ...s3Connection,
    key: objectName.optional(),
    key_prefix: prefix.optional(),
    acl: z.enum(S3_ACLS).optional(),
    cache_control: z.string().max(1024).optional(),
    content_disposition: z.string().max(1024).optional(),
    content_type: z.string().max(255).optional(),
    metadata: stringMap(z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'metadata names are letters, digits, ".", "_" and "-"')).optional(),
    server_side_encryption: z.enum(S3_SERVER_SIDE_ENCRYPTION).optional(),
    tagging: stringMap(z.string().min(1).max(128)).optional(),
  })
  .superRefine(namingRule('key', false));

// Azure Blob Storage -------------------------------------------------------------------------------

export const azureConnection = {
  storage_account: z.string().regex(AZURE_ACCOUNT_NAME, 'must be a storage account name: 3 to 24 lower-case letters and digits'),
  storage_access_key: secret('storage access key').optional(),
  sas_token: secret('SAS token').optional(),
  container: z
    .string()
    .regex(/^(\$root|[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62})$/, 'must be a container name: 3 to 63 lower-case letters, digits and single hyphens'),
};

export const importAzureArgs = z
  .looseObject({ ...common, ...azureConnection, blob: objectName.optional(), blob_prefix: prefix.optional(), filename: filename.optional() })
  .superRefine(namingRule('blob', true));

export const exportAzureArgs = z
  .looseObject({
    ...common,
    ...azureConnection,
    blob: objectName.optional(),
    blob_prefix: prefix.optional(),
    metadata: stringMap(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'metadata names must be C# identifiers (letters, digits, "_")')).optional(),
  })
  .superRefine(namingRule('blob', false))
  .superRefine((v, ctx) => {
    if (v.storage_access_key === undefined && v.sas_token === undefined) {
      ctx.addIssue({ code: 'custom', path: ['storage_access_key'], message: 'give storage_access_key or sas_token' });
    }
  });

// Google Cloud Storage -----------------------------------------------------------------------------

export const gcsConnection = {
  project_id: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^[a-z0-9.:-]{1,100}$/, 'must be a project id'),
  bucket: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/, 'must be a bucket name: lower-case letters, digits, "-", "_" and "."'),
  client_email: z.string().email('must be the service account e-mail'),
  private_key: secret('private key').refine((k) => k.includes('PRIVATE KEY'), 'must be the PEM private key of the service account'),
};

export const importGcsArgs = z
  .looseObject({ ...common, ...gcsConnection, file: objectName.optional(), file_prefix: prefix.optional(), filename: filename.optional() })
  .superRefine(namingRule('file', true));

export const exportGcsArgs = z
  .looseObject({ ...common, ...gcsConnection, file: objectName.optional(), file_prefix: prefix.optional() })
  .superRefine(namingRule('file', false));

// SFTP ---------------------------------------------------------------------------------------------

export const sftpConnectionFields = {
  host: z
    .string()
    .trim()
    .min(1, 'the host name or address is required')
    .max(255)
    .refine((h) => !/[\s/]/.test(h), 'must be a host name or IP address'),
  port: z.coerce.number().int('must be a whole number').min(1).max(65535).optional(),
  username: z.string().min(1, 'the user name is required').max(255),
  password: secret('password').optional(),
  private_key: secret('private key').optional(),
  passphrase: secret('passphrase').optional(),
  /** Expected host key: `SHA256:…`/`MD5:…` fingerprint or a public key line (ours). */
  host_key: z.string().min(1).max(8192).optional(),
};

/** SFTP signs in with a password or a private key: one of them is required. */
function sftpAuthRule(v: { password?: string; private_key?: string }, ctx: z.RefinementCtx) {
  if (v.password === undefined && v.private_key === undefined) {
    ctx.addIssue({ code: 'custom', path: ['password'], message: 'give password or private_key' });
  }
}

/** A folder on the SFTP server (`path`): every file below it (import), or where files go by their names (export). */
const sftpPath = z.string().max(1024, 'must be at most 1024 characters');

export const importSftpArgs = z
  .looseObject({ ...common, ...sftpConnectionFields, file: objectName.optional(), path: sftpPath.optional(), filename: filename.optional() })
  .superRefine(namingRule('file', true, 'path'))
  .superRefine(sftpAuthRule);

export const exportSftpArgs = z
  .looseObject({ ...common, ...sftpConnectionFields, file: objectName.optional(), path: sftpPath.optional() })
  .superRefine(namingRule('file', false, 'path'))
  .superRefine(sftpAuthRule);

// OpenStack Object Storage (Swift) -----------------------------------------------------------------

const optionalName = z.string().min(1).max(255).optional();

export const openstackConnection = {
  auth_url: httpUrl('Keystone identity service (auth_url)'),
  username: z.string().min(1, 'the user name is required').max(255),
  password: secret('password'),
  region: z.string().min(1, 'the region is required').max(255),
  container: z
    .string()
    .min(1, 'the container name is required')
    .max(256)
    .refine((c) => !c.includes('/') && !/^\.+$/.test(c), 'must be a container name, without "/", not only dots'),
  project_name: optionalName,
  tenant_name: optionalName,
  project_id: optionalName,
  tenant_id: optionalName,
  domain: optionalName,
  project_domain: optionalName,
};

export const importOpenstackArgs = z
  .looseObject({ ...common, ...openstackConnection, file: objectName.optional(), file_prefix: prefix.optional(), filename: filename.optional() })
  .superRefine(namingRule('file', true));

export const exportOpenstackArgs = z
  .looseObject({ ...common, ...openstackConnection, file: objectName.optional(), file_prefix: prefix.optional() })
  .superRefine(namingRule('file', false));

// HTTP PUT -----------------------------------------------------------------------------------------

export const exportUploadArgs = z.looseObject({
  ...common,
  url: httpUrl('upload target'),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a header name'), z.string()).optional(),
});
