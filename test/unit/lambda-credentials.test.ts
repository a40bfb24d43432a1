import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '#lib/wiring/lambda-credentials.js';

const NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'] as const;
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));

afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

describe("the functions' credential provider (in place of the SDK's default chain)", () => {
  it("gives the role's session credentials Lambda puts in the environment", async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
    const credentials = await defaultProvider()();
    expect(credentials).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('fails with the names of the variables it reads when they are missing, even with a profile set', async () => {
    for (const n of NAMES) delete process.env[n];
    process.env.AWS_PROFILE = 'someone';
    await expect(defaultProvider()()).rejects.toThrow(/AWS_ACCESS_KEY_ID.*AWS_SECRET_ACCESS_KEY/);
  });
});
