/**
 * Where a limit of the template is set, for the model's "setting" column: the packaged template holds the
 * values (a stage parameter is resolved by then), serverless.yml says where they come from. A value
 * written `${param:name, default}` is that stage parameter; any other is the entry of serverless.yml.
 */
import { parse } from 'yaml';

export interface SettingNames {
  /** A queue consumer's MaximumConcurrency. */
  queueCap(fn: string): string;
  reservedConcurrency(fn: string): string;
  /** An environment variable as a function gets it (its own entry, else the provider's). */
  environment(variable: string, fn?: string): string;
}

const PARAM = /\$\{param:([\w-]+)/;

function named(value: unknown, where: string): string {
  const param = typeof value === 'string' ? PARAM.exec(value)?.[1] : undefined;
  return param ? `stage parameter ${param}` : where;
}

/** Names from a serverless.yml's text; without one, the entries it would have. */
export function settingNames(serverlessYml?: string): SettingNames {
  const service = (serverlessYml ? parse(serverlessYml) : {}) as { provider?: { environment?: Record<string, unknown> }; functions?: Record<string, any> };
  const functions = service.functions ?? {};
  return {
    queueCap: (fn) => {
      const sqs = ((functions[fn]?.events ?? []) as any[]).find((e) => e?.sqs)?.sqs;
      return named(sqs?.maximumConcurrency, `functions.${fn}.events sqs maximumConcurrency (serverless.yml)`);
    },
    reservedConcurrency: (fn) => named(functions[fn]?.reservedConcurrency, `functions.${fn}.reservedConcurrency (serverless.yml)`),
    environment: (variable, fn) => {
      const own = fn ? functions[fn]?.environment?.[variable] : undefined;
      return named(own ?? service.provider?.environment?.[variable], `${own !== undefined ? `functions.${fn}` : 'provider'}.environment.${variable} (serverless.yml)`);
    },
  };
}
