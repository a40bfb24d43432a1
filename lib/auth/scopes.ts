/** The API key scopes of the file-processing API. */
export const SCOPES = ['user.read', 'user.write', 'task.read', 'task.write', 'webhook.read', 'webhook.write'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
