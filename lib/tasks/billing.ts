/**
 * Credits around a task's run (the balance and the rules: lib/account/credits.ts; the costs:
 * lib/operations/credits.ts).
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
 *
 * Sandbox tasks reserve nothing, pay nothing (`credits: 0`) and stay out of the usage ledger.
 *
 * A task cancelled or timed out while its run was between the two writes of `reserve` may be settled
 * before its hold exists; the run sees the task ended after taking the hold and gives it back itself.
 */
import { chargeOf, type Credits } from '../account/credits.js';
import { dayOf, type Usage } from '../account/usage.js';
import type { Logger } from '../log.js';
import { operationDefinition } from '../operations/index.js';
import { TaskFailure, type InputFile } from '../operations/types.js';
import { isEnded, isSandbox, type TaskRecord } from './model.js';
import type { TaskStore } from './store.js';

export interface BillingDeps {
  store: TaskStore;
  credits: Pick<Credits, 'account' | 'hold' | 'release'>;
  usage: Pick<Usage, 'add'>;
  /** What the task reserves, from its inputs (lib/operations/credits.ts reservationFor). */
  estimate(task: TaskRecord, inputs: readonly InputFile[]): number;
  log: Logger;
}

export class TaskBilling {
  constructor(private readonly deps: BillingDeps) {}

  /**
   * Reserves the task's credits for run `attempt`. False when the run no longer owns the task (it was
   * cancelled or timed out meanwhile); throws CREDITS_EXCEEDED when the balance is too low.
   */
  async reserve(task: TaskRecord, attempt: number, inputs: readonly InputFile[]): Promise<boolean> {
    const { store, credits } = this.deps;
    // The sandbox runs without credits: nothing is reserved.
    if (isSandbox(task)) return true;
    let reservation = task.reservation;
    if (!reservation) {
      const cost = this.deps.estimate(task, inputs);
      if (cost <= 0) return true;
      const user = await credits.account(task.userId);
      reservation = { credits: cost, held: !user.creditsUnlimited };
      if (!(await store.reserve(task.id, attempt, reservation))) return false;
    }
    if (!reservation.held) return true;
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
    return true;
  }

  /** Settles an ended task once; returns it as it is afterwards. */
  async settle(task: TaskRecord): Promise<TaskRecord> {
    if (task.settledAt || !isEnded(task.status)) return task;
    const { store, credits, usage, log } = this.deps;
    // A sandbox task paid nothing and is not counted in the usage: it is only marked settled, at 0.
    if (isSandbox(task)) return (await store.settle(task.id, 0)) ?? (await store.getTask(task.id)) ?? task;
    const charged = chargeOf(task);
    const reserved = task.reservation?.credits ?? 0;
    if (task.status === 'finished' && (task.credits ?? 0) > reserved) {
      log.warn('task cost more than it reserved; charged the reservation', { taskId: task.id, cost: task.credits, reserved });
    }
    if (task.reservation?.held) await credits.release(task.userId, task.id, reserved - charged);
    const settled = await store.settle(task.id, charged);
    if (!settled) return (await store.getTask(task.id)) ?? task;
    const operation = operationDefinition(task.operation)?.name ?? task.operation;
    await usage.add(task.userId, dayOf(settled.endedAt ?? new Date()), operation, {
      credits: charged,
      tasks: 1,
      failed: settled.status === 'error' ? 1 : 0,
    });
    return settled;
  }
}
