/**
 * An implementation whose module (and cloud SDK) is loaded on first use: a step consumer that runs
 * exports to S3 never loads the Azure or Google SDKs, so its cold start pays only for what it runs.
 */
import type { Implementation } from './types.js';

export function lazy<P>(load: () => Promise<Implementation<P>>): Implementation<P> {
  let loading: Promise<Implementation<P>> | undefined;
  return async (ctx) => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return (await loading)(ctx);
  };
}
