/**
 * Live updates for the Jobs pages: subscriptions to CloudConvert's channels while a component is
 * mounted, or, where the stage publishes no events (`liveEvents()` false), a poll at an interval
 * instead. Handlers are read through a ref, so a re-render never re-subscribes.
 */
import { useEffect, useRef } from 'preact/hooks';
import { liveEvents, subscribe } from './events';

export const JOB_EVENTS = ['job.created', 'job.updated', 'job.finished', 'job.failed'];
export const TASK_EVENTS = ['task.created', 'task.updated', 'task.finished', 'task.failed'];

export interface Live {
  /** Channel → its events and what to do with an event's data. */
  channels: Record<string, { events: string[]; on: (data: unknown) => void }>;
  /** Called every `everyMs` when there are no live events, while `polling` says so. */
  poll: () => void;
  everyMs: number;
  polling: boolean;
}

/** Subscribes to `live.channels` (re-done when their names change) or polls. */
export function useLive(live: Live): void {
  const current = useRef(live);
  current.current = live;
  const names = Object.keys(live.channels).sort().join(' ');
  useEffect(() => {
    if (!liveEvents() || !names) return undefined;
    const offs = names.split(' ').map((channel) =>
      subscribe(channel, current.current.channels[channel]?.events ?? [], (data) => current.current.channels[channel]?.on(data)),
    );
    return () => offs.forEach((off) => off());
  }, [names]);
  const polling = !liveEvents() && live.polling;
  useEffect(() => {
    if (!polling) return undefined;
    const timer = window.setInterval(() => current.current.poll(), live.everyMs);
    return () => window.clearInterval(timer);
  }, [polling, live.everyMs]);
}
