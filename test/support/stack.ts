// A whole stack for one test file: the four services as processes on throwaway databases, a
// redis-server and an SMTP peer of its own, and the file's people seeded. Its stop() stops what was
// started, last first, and a start that fails half-way stops what it had started before it throws.
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../../scripts/lib/redis.ts';
import { startStack } from '../../scripts/lib/stack.ts';
import type { Stack, StackOptions } from '../../scripts/lib/stack.ts';
import { seedUsers } from './users.ts';
import type { TestUser } from './users.ts';

export interface TestStack {
  stack: Stack;
  smtp: SmtpPeer;
  stop(): Promise<void>;
}

/** The stack on databases named `t_<name>_<time>_<service>`, with `users` seeded. */
export async function startTestStack(
  name: string,
  users: TestUser[],
  options: Pick<StackOptions, 'env' | 'readyTimeoutMs'> = {},
): Promise<TestStack> {
  const started: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const done of started.splice(0).reverse()) await done();
  };
  try {
    const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
    started.push(() => Promise.all([redis.stop(), smtp.stop()]));
    const stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `t_${name}_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      ...options,
    });
    started.push(() => stack.stop());
    await seedUsers(stack, users);
    return { stack, smtp, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
