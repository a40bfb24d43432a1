/**
 * Whether a `subscribe` may listen to a channel. The SDK sends its credential in each subscribe
 * message (`auth.headers.Authorization: Bearer …`), as clients of Laravel Echo Server do, so the check
 * is the file API's: an API key or OAuth access token (lib/http/credentials.ts) holding `task.read`, of
 * the user who owns the channel's job, task or user, sandbox credentials for sandbox records and live
 * ones for live records.
 *
 * A refusal carries the status the HTTP routes would answer (Laravel Echo Server passes on its auth
 * endpoint's): 401 without a valid credential, 403 otherwise. A channel of someone else's job, of a job
 * that does not exist and an unknown channel name are all 403, so a refusal tells nothing of other users.
 *
 * An accepted subscription keeps which credential made it (./credential-check.ts checks it again at
 * each event): it hears nothing once that credential ends.
 */
import * as z from 'zod';
import { credentialRef, type CredentialRef, type Credentials } from '../../http/credentials.js';
import { bearerToken } from '../../http/middleware/api-key.js';
import { isSandbox } from '../records/model.js';
import type { TaskStore } from '../records/store.js';
import { parseChannel } from './channels.js';

export const SUBSCRIBE_SCOPE = 'task.read';

const subscribeData = z.object({
  channel: z.string().max(200),
  auth: z.object({ headers: z.record(z.string(), z.unknown()).optional() }).optional(),
});

export interface SubscriptionOwner {
  userId: number;
  sandbox: boolean;
}

/** The credential that subscribed, as the subscription keeps it (checked again by each event) and its public id. */
export type SubscribingCredential = CredentialRef & { keyId: string };

export type SubscribeDecision =
  | { ok: true; channel: string; owner: SubscriptionOwner; credential: SubscribingCredential }
  | { ok: false; channel: string; status: 401 | 403 };

export interface SubscribeDeps {
  credentials: Pick<Credentials, 'verify'>;
  tasks: Pick<TaskStore, 'getJob' | 'getTask'>;
}

/** The channel named by a subscribe or unsubscribe message ('' when there is none). */
export function channelOf(data: unknown): string {
  const channel = (data as { channel?: unknown } | null)?.channel;
  return typeof channel === 'string' ? channel.slice(0, 200) : '';
}

export async function authorizeSubscription(data: unknown, deps: SubscribeDeps): Promise<SubscribeDecision> {
  const parsed = subscribeData.safeParse(data);
  if (!parsed.success) return { ok: false, channel: channelOf(data), status: 401 };
  const { channel } = parsed.data;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.data.auth?.headers ?? {})) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  const token = bearerToken(headers);
  const credential = token ? await deps.credentials.verify(token) : undefined;
  if (!token || !credential) return { ok: false, channel, status: 401 };
  const refused = { ok: false, channel, status: 403 } as const;
  if (!credential.scopes.includes(SUBSCRIBE_SCOPE)) return refused;
  const target = parseChannel(channel);
  if (!target) return refused;
  const mine = (record: { userId: number; sandbox?: unknown } | undefined) =>
    record !== undefined && record.userId === credential.userId && isSandbox(record) === credential.sandbox;
  switch (target.kind) {
    case 'job':
    case 'job-tasks':
      if (!mine(await deps.tasks.getJob(target.jobId))) return refused;
      break;
    case 'task':
      if (!mine(await deps.tasks.getTask(target.taskId))) return refused;
      break;
    case 'user-jobs':
    case 'user-tasks':
      if (target.userId !== credential.userId) return refused;
      break;
  }
  return { ok: true, channel, owner: { userId: credential.userId, sandbox: credential.sandbox }, credential: { ...credentialRef(token, credential), keyId: credential.keyId } };
}
