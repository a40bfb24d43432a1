/**
 * Credits. Every user has a balance (the user item's `credits`) that tasks reserve from when they
 * start and settle against when they end, or an unlimited one (`creditsUnlimited`, the built-in
 * account's default), where tasks are counted in the usage but never refused.
 *
 * The balance changes only by conditional updates of the user item, so it never goes below zero however
 * many tasks start at once, and each change belongs to one task: a reservation adds the task's id to
 * the item's `creditHolds` set and is refused when the id is there already (a redelivered message
 * cannot reserve twice); a settlement takes the id out and is refused when it is not there (a task is
 * settled once). The set holds only the tasks under way.
 *
 * The rules: a finished task pays what its run cost, never more than it reserved; a failed task pays
 * what it reserved when its input is at fault (CHARGED_FAILURES), and nothing otherwise.
 */
import { userKey, type UserRecord, type Users } from '../../access/auth/users.js';
import { ApiError } from '../../kernel/errors.js';
import { ConditionFailedError, type StateStore } from '../../adapters/state/port.js';
import type { TaskRecord } from '../records/model.js';

/** A balance as the operator sets it. */
export type Balance = number | 'unlimited';

/**
 * What `GET /v2/users/me` shows as `credits` for an unlimited balance: the largest 32-bit integer, which
 * every SDK's type for the field holds (the Java SDK's is an `Integer`, the Node SDK's a number), so a
 * client comparing it with a task's cost goes on; `credits_unlimited: true` says what it means.
 */
export const UNLIMITED_CREDITS_SHOWN = 2_147_483_647;

/**
 * Failures where the input is at fault (a damaged, invalid or encrypted file, a wrong password, a file
 * past a limit, arguments the data does not fit): the task pays what it reserved, since the work was
 * asked for and attempted. Every other failure is refunded in full: engine and infrastructure trouble
 * (CONVERSION_FAILED, CAPTURE_FAILED, ENGINE_UNAVAILABLE, INTERNAL_ERROR, DOWNLOAD_FAILED, UPLOAD_FAILED),
 * TIMEOUT, CANCELLED, INPUT_TASK_FAILED, a format this installation does not serve (UNSUPPORTED_FORMAT),
 * CREDITS_EXCEEDED, and any code not listed here.
 */
export const CHARGED_FAILURES: ReadonlySet<string> = new Set([
  'INVALID_INPUT',
  'INVALID_DATA',
  'ENCRYPTED_INPUT',
  'INVALID_PASSWORD',
  'FILE_TOO_LARGE',
  'IMAGE_TOO_LARGE',
  'TOO_MANY_PAGES',
  'TOO_MANY_FILES',
]);

/** What an ended task pays, out of what it reserved. */
export function chargeOf(task: Pick<TaskRecord, 'status' | 'code' | 'credits' | 'reservation'>): number {
  const reserved = task.reservation?.credits ?? 0;
  if (task.status === 'finished') return Math.min(task.credits ?? 0, reserved);
  if (task.status === 'error' && task.code !== null && CHARGED_FAILURES.has(task.code)) return reserved;
  return 0;
}

/** The account's credits as the file API shows them (`GET /v2/users/me`). */
export function creditsView(user: Pick<UserRecord, 'credits' | 'creditsUnlimited'>) {
  return { credits: user.creditsUnlimited ? UNLIMITED_CREDITS_SHOWN : user.credits, credits_unlimited: user.creditsUnlimited === true };
}

/** `unlimited` or a whole number of credits, as an operator types it; undefined when it is neither. */
export function parseBalance(text: string): Balance | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'unlimited') return value;
  return /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** The outcome of taking a task's reservation from a balance. */
export type Hold =
  /** Taken now. */
  | { kind: 'held' }
  /** Taken before (a redelivered message). */
  | { kind: 'already' }
  /** Nothing to take: the balance is unlimited. */
  | { kind: 'unlimited' }
  /** The balance is below the reservation. */
  | { kind: 'insufficient'; balance: number };

export interface CreditsDeps {
  state: StateStore;
  /** The accounts (the built-in one is made on first use). */
  users: Users;
}

/** A balance may change between a refused hold and the look that explains it; this many tries, then it counts as too low. */
const HOLD_TRIES = 5;

export class Credits {
  constructor(private readonly deps: CreditsDeps) {}

  /** The user's record (made on first use for the built-in account). */
  account(userId: number): Promise<UserRecord> {
    return this.deps.users.get(userId);
  }

  /** Sets a user's balance (the operator's command): a number of credits, or `unlimited`. Tasks under way settle against the new balance. */
  async setCredits(userId: number, value: Balance): Promise<UserRecord> {
    if (value !== 'unlimited' && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`a balance is a whole number of credits (0 or more) or unlimited, not ${String(value)}`);
    }
    await this.account(userId);
    const change = value === 'unlimited' ? { set: { creditsUnlimited: true } } : { set: { credits: value }, remove: ['creditsUnlimited'] };
    return this.deps.state.update<UserRecord>(userKey(userId), change, { condition: { exists: true } });
  }

  /**
   * Refuses (402 CREDITS_EXCEEDED, before anything is stored) a request whose tasks cost `costs` (each
   * task's least cost) when the balance is below the cheapest of those that cost anything: none of them
   * could start. Requests of free tasks only (imports, exports) always pass.
   */
  async assertCanCreate(userId: number, costs: readonly number[]): Promise<void> {
    const paying = costs.filter((c) => c > 0);
    if (paying.length === 0) return;
    const user = await this.account(userId);
    if (user.creditsUnlimited) return;
    const cheapest = Math.min(...paying);
    if (user.credits < cheapest) {
      throw new ApiError('FAILED_PRECONDITION', `Your account has run out of credits: ${user.credits} left, and the cheapest task of this request costs ${cheapest}.`, {
        status: 402,
        code: 'CREDITS_EXCEEDED',
      });
    }
  }

  /** Takes `amount` from the balance for the task, once. */
  async hold(userId: number, taskId: string, amount: number): Promise<Hold> {
    let balance = 0;
    for (let tries = 0; tries < HOLD_TRIES; tries++) {
      try {
        await this.deps.state.update(userKey(userId), { add: { credits: -amount, creditHolds: new Set([taskId]) } }, {
          condition: {
            exists: true,
            atLeast: { credits: amount },
            lacks: { creditHolds: taskId },
            anyOf: [{ equals: { creditsUnlimited: null } }, { equals: { creditsUnlimited: false } }],
          },
        });
        return { kind: 'held' };
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
      const user = await this.deps.state.get<UserRecord>(userKey(userId), { consistent: true });
      if (!user) {
        await this.account(userId);
        continue;
      }
      if (user.creditsUnlimited) return { kind: 'unlimited' };
      if (user.creditHolds && [...user.creditHolds].includes(taskId)) return { kind: 'already' };
      balance = user.credits;
      if (balance < amount) break;
      // A refund came in between the refused update and this look: try again.
    }
    return { kind: 'insufficient', balance };
  }

  /**
   * Ends the task's hold, giving `refund` back to the balance; false when the task holds nothing (it
   * was settled already, or its hold was never taken).
   */
  async release(userId: number, taskId: string, refund: number): Promise<boolean> {
    try {
      await this.deps.state.update(userKey(userId), { ...(refund > 0 ? { add: { credits: refund } } : {}), delete: { creditHolds: new Set([taskId]) } }, {
        condition: { holds: { creditHolds: taskId } },
      });
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }
}
