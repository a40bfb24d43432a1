/** A state store that reports each method call (name and arguments) before passing it on, for tests that count round trips. */
import type { StateStore } from '#lib/adapters/state/port.js';

export function observedState(inner: StateStore, onCall: (method: string, args: unknown[]) => void): StateStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        onCall(String(prop), args);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
