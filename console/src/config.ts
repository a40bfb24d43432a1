/** What the page function tells the app (functions/console/page.ts writes it on the root element). */
export interface ConsoleConfig {
  /** The session's CSRF token, sent with every call to /console/token and /console/sign-out. */
  csrf: string;
  user: { id: number; username: string; email: string };
  /** socket.io's address for live events, or null when this stage publishes none. */
  socket: { url: string; path: string } | null;
}

export function readConfig(root: HTMLElement): ConsoleConfig {
  return JSON.parse(root.dataset.config ?? '{}') as ConsoleConfig;
}
