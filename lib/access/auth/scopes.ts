/** The API key scopes: the file-processing API's own, and the Google OAuth scopes of the Google-dialect APIs. */
export const FILE_API_SCOPES = ['user.read', 'user.write', 'task.read', 'task.write', 'webhook.read', 'webhook.write'] as const;
export type FileApiScope = (typeof FILE_API_SCOPES)[number];

/** Where Google's OAuth scopes live; `npm run keys` accepts the part after it as a short form. */
export const GOOGLE_SCOPE_BASE = 'https://www.googleapis.com/auth/';

/** The OAuth scopes of label limits (any one of the four drive.labels scopes) and migration assessment (cloud-platform). */
export const GOOGLE_SCOPES = [
  'https://www.googleapis.com/auth/drive.labels',
  'https://www.googleapis.com/auth/drive.labels.readonly',
  'https://www.googleapis.com/auth/drive.admin.labels',
  'https://www.googleapis.com/auth/drive.admin.labels.readonly',
  'https://www.googleapis.com/auth/cloud-platform',
] as const;
export type GoogleScope = (typeof GOOGLE_SCOPES)[number];

/** Every scope an API key can hold. */
export const SCOPES = [...FILE_API_SCOPES, ...GOOGLE_SCOPES] as const;
export type Scope = FileApiScope | GoogleScope;

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
