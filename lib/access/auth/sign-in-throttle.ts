/**
 * Throttling of password sign-in, so that guessing is slow and the account's owner is never locked out.
 *
 * - Keyed per account AND source address (an IPv6 address by its /64, what one host is usually given):
 *   an attacker's failures slow that attacker's address for that account only; the owner elsewhere
 *   signs in as usual. There is no lockout: every delay ends, and the longest is capped.
 * - Growing delays: the first `freeFailures` wrong passwords cost nothing; each further one makes the
 *   next attempt wait `delaySeconds`, doubled per failure, at most `maxDelaySeconds`. A success clears it.
 * - Atomic and taken BEFORE the password check: an attempt first claims its key with one conditional
 *   update ("no attempt running and no delay pending"), which also marks it running for `LEASE_MS`. So
 *   parallel attempts from one address for one account are checked one at a time, and each outcome is
 *   counted before the next is let in; the others are answered at once.
 * One item per key, forgotten a day after its last failure (`expiresAt`).
 */
import { randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { ConditionFailedError, epochSeconds, type StateStore } from '../../adapters/state/port.js';

export interface SignInThrottleSettings {
  freeFailures: number;
  delaySeconds: number;
  maxDelaySeconds: number;
}

/** A claimed attempt: report its outcome with `succeeded`, `failed` or `abandon`. */
export interface Attempt {
  key: { pk: string; sk: string };
  failures: number;
}

export type Claim = { ok: true; attempt: Attempt } | { ok: false; retryAfterSeconds: number; running: boolean };

type ThrottleItem = {
  pk: string;
  sk: string;
  failures?: number;
  /** Epoch ms before which no attempt is let in (a running attempt's lease or a failure's delay). */
  until?: number;
  /** Set while an attempt is being checked. */
  running?: string;
  lastFailureAt?: number;
};

/** Longer than any password check may take (the gateway answers after 29 s); a crashed check frees its key then. */
const LEASE_MS = 30_000;
const FORGET_SECONDS = 24 * 3600;

/** The address part of the key: IPv4 as is, IPv6 by its first 64 bits. */
export function addressKey(sourceIp: string | undefined): string {
  const ip = (sourceIp ?? '').trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (!isIPv6(ip)) return ip || 'unknown';
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class SignInThrottle {
  constructor(
    private readonly store: StateStore,
    private readonly settings: SignInThrottleSettings,
  ) {}

  /** The wait after `failures` consecutive failures, in seconds (0: none). */
  delayAfter(failures: number): number {
    const { freeFailures, delaySeconds, maxDelaySeconds } = this.settings;
    if (failures <= freeFailures) return 0;
    return Math.min(maxDelaySeconds, delaySeconds * 2 ** Math.min(failures - freeFailures - 1, 30));
  }

  /** Claims an attempt for `email` from `sourceIp`, or says how long to wait. */
  async claim(email: string, sourceIp: string | undefined, now = Date.now()): Promise<Claim> {
    const key = { pk: `signin#${email}`, sk: addressKey(sourceIp) };
    try {
      const item = await this.store.update<ThrottleItem>(
        key,
        { set: { until: now + LEASE_MS, running: randomUUID(), expiresAt: epochSeconds(now) + FORGET_SECONDS } },
        { condition: { absentOrBelow: { until: now + 1 } } },
      );
      // Failures older than a day are forgotten, whether or not the store has deleted the item yet.
      const recent = (item.lastFailureAt ?? 0) > now - FORGET_SECONDS * 1000;
      return { ok: true, attempt: { key, failures: recent ? (item.failures ?? 0) : 0 } };
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      const item = await this.store.get<ThrottleItem>(key, { consistent: true });
      // A running check ends within a second or so: try again soon, rather than after its lease.
      const running = item?.running !== undefined;
      const waitMs = running ? 1000 : (item?.until ?? now) - now;
      return { ok: false, running, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
  }

  /** The right password: the key starts afresh. */
  async succeeded(attempt: Attempt): Promise<void> {
    await this.store.delete(attempt.key);
  }

  /** A wrong password: counted, and the next attempt waits as long as `delayAfter` says. Returns that wait. */
  async failed(attempt: Attempt, now = Date.now()): Promise<number> {
    const failures = attempt.failures + 1;
    const delay = this.delayAfter(failures);
    await this.store.update(attempt.key, {
      set: { failures, until: now + delay * 1000, lastFailureAt: now, expiresAt: epochSeconds(now) + FORGET_SECONDS },
      remove: ['running'],
    });
    return delay;
  }

  /** No password was checked (no capacity, or the check failed): the key is free again, nothing counted. */
  async abandon(attempt: Attempt, now = Date.now()): Promise<void> {
    await this.store.update(attempt.key, { set: { until: now }, remove: ['running'] });
  }
}

/**
 * At most `max` password checks at once in this process: scrypt takes 128 MiB and a thread of libuv's
 * pool (4 threads, shared with file and DNS work) for about a second. A caller that finds no slot is
 * answered at once ("try again") rather than queued past the gateway's 29 s.
 */
export class CheckSlots {
  #busy = 0;
  constructor(readonly max: number) {}

  /** A release function, or undefined when every slot is taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#busy >= this.max) return undefined;
    this.#busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
    };
  }
}
