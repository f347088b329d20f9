// Rate limits on the endpoints that send a code or check one, in Redis (rate-limiter-flexible), per
// client IP (the one address the gateway puts in X-Forwarded-For) and per e-mail address. Key names
// are a keyed hash of the IP or address, never the value itself.
//
// The bound on guessing: an OTP dies after OTP_ATTEMPTS (3) wrong tries, and asking for a new one
// resets that count, so the guesses per address are capped by the sends per address:
//   guesses/hour <= 3 x OTP_SENDS_PER_ADDRESS_PER_HOUR   (15 with the defaults)
//   guesses/day  <= 3 x OTP_SENDS_PER_ADDRESS_PER_DAY    (60 with the defaults)
// and an independent verify counter per address enforces exactly those numbers even if the send
// counter were bypassed. Windows are fixed (they start at the first request), so any sliding hour
// sees at most twice the hourly figure, and never more than the daily one.
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { OTP_ATTEMPTS } from '../config.ts';
import type { Config } from '../config.ts';
import { hmac } from '../keys/index.ts';

const HOUR = 3600;
const DAY = 24 * HOUR;

export class RateLimited extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('too many requests');
    this.name = 'RateLimited';
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }
}

/** Redis did not answer: refuse rather than let a flood through unlimited. */
export class LimiterUnavailable extends Error {
  constructor(cause: unknown) {
    super('rate limiter unavailable', { cause });
    this.name = 'LimiterUnavailable';
  }
}

export type LimitSettings = Pick<
  Config,
  | 'OTP_SENDS_PER_ADDRESS_PER_HOUR'
  | 'OTP_SENDS_PER_ADDRESS_PER_DAY'
  | 'MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR'
  | 'SEND_LIMIT_PER_IP_PER_HOUR'
  | 'VERIFY_LIMIT_PER_IP_PER_HOUR'
  | 'DEVICE_VERIFY_LIMIT_PER_IP_PER_HOUR'
  | 'DEVICE_VERIFY_LIMIT_PER_USER_PER_HOUR'
>;

/** The figures docs/access.md states (sign-in limits), computed from the settings. */
export function guessBound(settings: LimitSettings): { perHour: number; perDay: number } {
  return {
    perHour: OTP_ATTEMPTS * settings.OTP_SENDS_PER_ADDRESS_PER_HOUR,
    perDay: OTP_ATTEMPTS * settings.OTP_SENDS_PER_ADDRESS_PER_DAY,
  };
}

export interface Limits {
  /** Before a magic link or an OTP is sent: per IP, then per address. */
  send(kind: 'otp' | 'magic-link', ip: string, email: string): Promise<void>;
  /** Gives back what `send` charged, when the mail could not be accepted after all. */
  refundSend(kind: 'otp' | 'magic-link', ip: string, email: string): Promise<void>;
  /** Before an OTP is checked: per IP, then per address. */
  verifyOtp(ip: string, email: string): Promise<void>;
  /** Before a magic link or a passkey assertion is checked: per IP. */
  verify(ip: string): Promise<void>;
  /** Before a device user code is looked up, approved or denied: per IP, and per signed-in user. */
  deviceCode(ip: string, userId?: string): Promise<void>;
}

export function createLimits(redis: Redis, hashKey: Buffer, settings: LimitSettings): Limits {
  const limiter = (name: string, points: number, duration: number) => {
    const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: `simrs:rl:${name}`, points, duration });
    const consume = async (value: string) => {
      try {
        await rl.consume(hmac(hashKey, `${name}:${value}`));
      } catch (err) {
        if (err instanceof RateLimiterRes) throw new RateLimited(Math.ceil(err.msBeforeNext / 1000));
        throw new LimiterUnavailable(err);
      }
    };
    return Object.assign(consume, { refund: (value: string) => rl.reward(hmac(hashKey, `${name}:${value}`), 1).then(() => {}) });
  };
  const bound = guessBound(settings);
  const sendIp = limiter('send-ip', settings.SEND_LIMIT_PER_IP_PER_HOUR, HOUR);
  const otpSendHour = limiter('otp-send-hour', settings.OTP_SENDS_PER_ADDRESS_PER_HOUR, HOUR);
  const otpSendDay = limiter('otp-send-day', settings.OTP_SENDS_PER_ADDRESS_PER_DAY, DAY);
  const linkSendHour = limiter('link-send-hour', settings.MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR, HOUR);
  const verifyIp = limiter('verify-ip', settings.VERIFY_LIMIT_PER_IP_PER_HOUR, HOUR);
  const otpVerifyHour = limiter('otp-verify-hour', bound.perHour, HOUR);
  const otpVerifyDay = limiter('otp-verify-day', bound.perDay, DAY);
  const deviceIp = limiter('device-ip', settings.DEVICE_VERIFY_LIMIT_PER_IP_PER_HOUR, HOUR);
  const deviceUser = limiter('device-user', settings.DEVICE_VERIFY_LIMIT_PER_USER_PER_HOUR, HOUR);

  return {
    async send(kind, ip, email) {
      await sendIp(ip);
      if (kind === 'otp') {
        await otpSendHour(email);
        await otpSendDay(email);
      } else {
        await linkSendHour(email);
      }
    },
    async refundSend(kind, ip, email) {
      await Promise.all(
        kind === 'otp'
          ? [sendIp.refund(ip), otpSendHour.refund(email), otpSendDay.refund(email)]
          : [sendIp.refund(ip), linkSendHour.refund(email)],
      );
    },
    async verifyOtp(ip, email) {
      await verifyIp(ip);
      await otpVerifyHour(email);
      await otpVerifyDay(email);
    },
    async verify(ip) {
      await verifyIp(ip);
    },
    async deviceCode(ip, userId) {
      await deviceIp(ip);
      if (userId) await deviceUser(userId);
    },
  };
}
