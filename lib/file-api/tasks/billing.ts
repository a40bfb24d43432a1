/**
 * Credits around a task's run (the balance and the rules: lib/file-api/account/credits.ts; the costs:
 * lib/file-api/operations/framework/credits.ts).
 *
 * - `reserve`, when a run starts: the task's cost is written on the task, once (conditional on the run
 *   owning the task and on no reservation being there), then taken from the balance, once (the balance
 *   records the task's hold). A redelivered message finds both and takes nothing again; a balance too
 *   low ends the task with CREDITS_EXCEEDED.
 * - `settle`, after a task has ended (the scheduler's `afterEnd`, at least once): the balance gets back
 *   what the task does not owe (its hold ends, once), the task records the credits it paid, and the usage
 *   ledger counts it. The task's `settledAt` is written once and only that writer counts the task, so a
 *   task is counted at most once (a crash between the two leaves it out of the usage; the balance is
 *   exact either way).
 * - A run that finishes a task holding nothing on the balance (nothing reserved, an unlimited
 *   account, the sandbox) writes the credits and `settledAt` with the task's end instead
 *   (`settlementAtFinish`), one write fewer, and counts the task itself (`count`); `settle` then finds
 *   it settled.
 *
 * Sandbox tasks reserve nothing, pay nothing (`credits: 0`) and stay out of the usage ledger.
 *
 * A task cancelled or timed out while its run was between the two writes of `reserve` may be settled
 * before its hold exists; the run sees the task ended after taking the hold and gives it back itself.
 */
import { chargeOf, type Credits } from '../account/credits.js';
import { dayOf, type Usage } from '../account/usage.js';
import type { Logger } from '../../kernel/log.js';
import { operationDefinition } from '../operations/index.js';
import { TaskFailure, type InputFile } from '../operations/framework/types.js';
import { isEnded, isSandbox, type TaskRecord } from '../records/model.js';
import type { TaskStore } from '../records/store.js';

type Reservation = NonNullable<TaskRecord['reservation']>;

export interface BillingDeps {
  store: TaskStore;
  credits: Pick<Credits, 'account' | 'hold' | 'release'>;
  usage: Pick<Usage, 'add'>;
  /** What the task reserves, from its inputs (lib/file-api/operations/framework/credits.ts reservationFor). */
  estimate(task: TaskRecord, inputs: readonly InputFile[]): number;
  log: Logger;
}

export class TaskBilling {
  constructor(private readonly deps: BillingDeps) {}

  /**
   * Reserves the task's credits for run `attempt`: the task's reservation when the run goes on (none:
   * nothing reserved), false when the run no longer owns the task (it was cancelled or timed out
   * meanwhile); throws CREDITS_EXCEEDED when the balance is too low.
   */
  async reserve(task: TaskRecord, attempt: number, inputs: readonly InputFile[]): Promise<false | { reservation?: Reservation }> {
    const { store, credits } = this.deps;
    // The sandbox runs without credits: nothing is reserved.
    if (isSandbox(task)) return {};
    let reservation = task.reservation;
    if (!reservation) {
      const cost = this.deps.estimate(task, inputs);
      if (cost <= 0) return {};
      const user = await credits.account(task.userId);
      reservation = { credits: cost, held: !user.creditsUnlimited };
      if (!(await store.reserve(task.id, attempt, reservation))) return false;
    }
    if (!reservation.held) return { reservation };
    const hold = await credits.hold(task.userId, task.id, reservation.credits);
    if (hold.kind === 'insufficient') {
      throw new TaskFailure('CREDITS_EXCEEDED', `Not enough credits: this task needs ${reservation.credits} and the account has ${hold.balance}.`);
    }
    if (hold.kind === 'held') {
      const now = await store.getTask(task.id);
      // Ended by someone else (cancelled, timed out): never charged, and its settlement may have passed.
      if (!now || isEnded(now.status)) {
        await credits.release(task.userId, task.id, reservation.credits);
        return false;
      }
    }
    return { reservation };
  }

  /**
   * What a run that finishes writes with its end, so that the end is settled in the same write, when
   * the task holds nothing on the balance (nothing reserved, an unlimited account's reservation, the
   * sandbox): the credits it pays and `settledAt`. Undefined when a hold must be given back first
   * (`settle`, after the end, does it). The writer then counts the task (`count`).
   */
  settlementAtFinish(task: TaskRecord, reservation: Reservation | undefined, cost: number): { credits: number; settledAt: string } | undefined {
    if (reservation?.held) return undefined;
    const settledAt = new Date().toISOString();
    if (isSandbox(task)) return { credits: 0, settledAt };
    const finished = { ...task, status: 'finished' as const, code: null, credits: cost, reservation };
    this.#warnIfOver(finished);
    return { credits: chargeOf(finished), settledAt };
  }

  /** Counts a task settled with its end (`settlementAtFinish`) in the usage ledger; a failure is logged. */
  async count(settled: TaskRecord): Promise<void> {
    await this.#count(settled, settled.credits ?? 0).catch((err: unknown) => this.deps.log.warn('usage not counted', { taskId: settled.id, error: err }));
  }

  #warnIfOver(task: TaskRecord): void {
    const reserved = task.reservation?.credits ?? 0;
    if (task.status === 'finished' && (task.credits ?? 0) > reserved) {
      this.deps.log.warn('task cost more than it reserved; charged the reservation', { taskId: task.id, cost: task.credits, reserved });
    }
  }

  async #count(settled: TaskRecord, charged: number): Promise<void> {
    if (isSandbox(settled)) return;
    const operation = operationDefinition(settled.operation)?.name ?? settled.operation;
    await this.deps.usage.add(settled.userId, dayOf(settled.endedAt ?? new Date()), operation, {
      credits: charged,
      tasks: 1,
      failed: settled.status === 'error' ? 1 : 0,
    });
  }

  /** Settles an ended task once; returns it as it is afterwards. */
  async settle(task: TaskRecord): Promise<TaskRecord> {
    if (task.settledAt || !isEnded(task.status)) return task;
    const { store, credits } = this.deps;
    // A sandbox task paid nothing and is not counted in the usage: it is only marked settled, at 0.
    if (isSandbox(task)) return (await store.settle(task.id, 0)) ?? (await store.getTask(task.id)) ?? task;
    const charged = chargeOf(task);
    this.#warnIfOver(task);
    if (task.reservation?.held) await credits.release(task.userId, task.id, (task.reservation.credits ?? 0) - charged);
    const settled = await store.settle(task.id, charged);
    if (!settled) return (await store.getTask(task.id)) ?? task;
    await this.#count(settled, charged);
    return settled;
  }
}
