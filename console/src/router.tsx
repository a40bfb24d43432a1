/**
 * Pages as paths under /console (the page function serves the same shell for each), moved between
 * with the History API: links are ordinary <a href> (keyboard, middle click, copy link all work) and a
 * click on one is taken over here.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export type Route =
  | { page: 'convert' }
  | { page: 'jobs' }
  | { page: 'job'; id: string }
  | { page: 'builder' }
  | { page: 'account' }
  | { page: 'missing'; path: string };

export function parseRoute(pathname: string): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '') : pathname;
  if (rest === '' || rest === 'convert') return { page: 'convert' };
  if (rest === 'jobs') return { page: 'jobs' };
  const job = /^jobs\/([A-Za-z0-9_-]{1,64})$/.exec(rest);
  if (job) return { page: 'job', id: job[1]! };
  if (rest === 'builder') return { page: 'builder' };
  if (rest === 'account') return { page: 'account' };
  return { page: 'missing', path: rest };
}

export const hrefOf = (path: string) => `${BASE}${path ? `/${path}` : ''}`;

const listeners = new Set<() => void>();

export function navigate(path: string): void {
  window.history.pushState(null, '', hrefOf(path));
  listeners.forEach((l) => l());
}

/** The current route, re-rendered on navigation and on the browser's back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A link to a console page (`to` is the path after /console/). */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={hrefOf(props.to)}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
