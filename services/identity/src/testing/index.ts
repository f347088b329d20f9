// Test support, never imported by production code: the integration fixture (a throwaway database, a
// private redis-server, an SMTP peer, the real notifier and identity processes) and unit-test settings.
export { Client, hearRevocations, linkFrom, otpFrom, signInWithOtp, startFixture, startRedis } from './harness.ts';
export type { Fixture, RedisServer } from './harness.ts';
export { REQUIRED_ENV, TEST_SECRET } from './units.ts';
