/**
 * Whether the credential a subscription was made with still lets it hear its owner's events: the same
 * check as at subscribe (lib/http/credentials.ts: key not revoked, token not revoked or expired, grant
 * unchanged, client registered, user active; `task.read`; the owner's user and sandbox mode), made
 * again when an event is published. So any way a credential ends, including ones added later, ends
 * the events too, without each revocation path having to find the sockets.
 *
 * A function instance keeps each answer a few seconds (`seconds`), so a burst of events costs one
 * check per credential, not one per event and subscriber; concurrent checks of one credential share
 * one read. A check that failed twice (the table unreachable) is not kept.
 */
import type { CredentialRef, Credentials } from '../../http/credentials.js';
import type { SubscriptionRecord } from './connections.js';
import { SUBSCRIBE_SCOPE, type SubscriptionOwner } from './subscribe.js';

/** Answers kept at most: beyond that the expired, then the oldest, are dropped. */
const MAX_ENTRIES = 10_000;

const isRef = (ref: unknown): ref is CredentialRef => {
  const r = ref as Partial<CredentialRef> | null | undefined;
  return typeof r?.hash === 'string' && /^[0-9a-f]{64}$/.test(r.hash) && (r.kind === 'api-key' || r.kind === 'oauth');
};

export class SubscriptionCredentials {
  readonly #answers = new Map<string, { until: number; allows: Promise<boolean> }>();

  constructor(
    private readonly credentials: Pick<Credentials, 'verifyRef'>,
    private readonly opts: { seconds: number; now?: () => number },
  ) {}

  /**
   * True while the subscription's credential may hear `owner`'s events; false once it ended (or the
   * subscription recorded none). Rejects when the check could not be made.
   */
  allows(sub: Pick<SubscriptionRecord, 'credential'>, owner: SubscriptionOwner): Promise<boolean> {
    const ref = sub.credential;
    if (!isRef(ref)) return Promise.resolve(false);
    const key = `${ref.kind}|${ref.hash}|${owner.userId}|${owner.sandbox}`;
    const now = (this.opts.now ?? Date.now)();
    const kept = this.#answers.get(key);
    if (kept && kept.until > now) return kept.allows;
    const verify = () => this.credentials.verifyRef({ kind: ref.kind, hash: ref.hash });
    // Tried twice: a check that cannot be made holds the event back from this subscriber.
    const allows = verify()
      .catch(verify)
      .then((c) => c !== undefined && c.userId === owner.userId && c.sandbox === owner.sandbox && c.scopes.includes(SUBSCRIBE_SCOPE));
    if (this.opts.seconds > 0) {
      this.#answers.set(key, { until: now + this.opts.seconds * 1000, allows });
      allows.catch(() => {
        if (this.#answers.get(key)?.allows === allows) this.#answers.delete(key);
      });
      this.#prune(now);
    }
    return allows;
  }

  #prune(now: number): void {
    if (this.#answers.size <= MAX_ENTRIES) return;
    for (const [key, answer] of this.#answers) if (answer.until <= now) this.#answers.delete(key);
    for (const key of this.#answers.keys()) {
      if (this.#answers.size <= MAX_ENTRIES) break;
      this.#answers.delete(key);
    }
  }
}
