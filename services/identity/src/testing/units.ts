// What unit tests need to parse settings and derive keys: the required variables, with a secret long
// enough to pass validation.
export const TEST_SECRET = 'a-test-secret-that-is-long-enough-0123456789';

export const REQUIRED_ENV = {
  DATABASE_URL: 'postgres://u@h/identity',
  REDIS_URL: 'redis://h:6379',
  NOTIFIER_GRPC: 'notifier:50052',
  PUBLIC_URL: 'https://simrs.example.org',
  AUTH_SECRET: TEST_SECRET,
};
