/** One task of a job's page: its status, engine, progress, times, credits, message, and its actions. */
import type { ComponentChildren } from 'preact';
import { durationText, canCancel, canRetry, taskLabel, type JobView, type TaskView } from '../jobs-model';
import { When } from './jobs-table';

export function Fact(props: { term: string; class?: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd class={props.class}>{props.children}</dd>
    </div>
  );
}

/** Started, ended and duration of a job or a task. */
export function TimeFacts({ item }: { item: Pick<JobView, 'status' | 'started_at' | 'ended_at'> }) {
  return (
    <>
      <Fact term="Started">
        <When iso={item.started_at} />
      </Fact>
      <Fact term="Ended">
        <When iso={item.ended_at} />
      </Fact>
      <Fact term="Duration">{durationText(item)}</Fact>
    </>
  );
}

export interface TaskActions {
  busy: boolean;
  retry(task: TaskView): void;
  cancel(task: TaskView): void;
}

export function TaskItem({ task, actions, heading = 'h3' }: { task: TaskView; actions?: TaskActions; heading?: 'h3' | 'h4' }) {
  const label = taskLabel(task);
  const Heading = heading;
  const percent = Math.max(0, Math.min(100, task.percent ?? 0));
  return (
    <>
      <Heading>
        {label} <span class="muted">{task.operation}</span>
      </Heading>
      <progress max={100} value={percent} aria-label={`${label} progress`}>
        {percent} %
      </progress>
      <dl class="task-facts">
        <Fact term="Status" class={`status-${task.status}`}>
          {task.status}
        </Fact>
        <Fact term="Progress">{percent} %</Fact>
        <Fact term="Engine">{task.engine ? `${task.engine}${task.engine_version ? ` ${task.engine_version}` : ''}` : '—'}</Fact>
        <TimeFacts item={task} />
        <Fact term="Credits">{task.credits ?? '—'}</Fact>
        <Fact term="Id">
          <code>{task.id}</code>
        </Fact>
      </dl>
      {task.message && (
        <p class={task.status === 'error' ? 'error' : 'muted'}>
          {task.message}
          {task.code && (
            <>
              {' '}
              <code>{task.code}</code>
            </>
          )}
        </p>
      )}
      {actions && (canRetry(task) || canCancel(task)) && (
        <div class="actions">
          {canRetry(task) && (
            <button type="button" class="secondary" disabled={actions.busy} aria-label={`Retry ${label}`} onClick={() => actions.retry(task)}>
              Retry
            </button>
          )}
          {canCancel(task) && (
            <button type="button" class="danger" disabled={actions.busy} aria-label={`Cancel ${label}`} onClick={() => actions.cancel(task)}>
              Cancel
            </button>
          )}
        </div>
      )}
    </>
  );
}
