// What the SATUSEHAT procedures need beyond the caller's scope, set once at start by main.ts: the
// settings, the seal key and, when there is one, the shared token cache (saving new credentials drops
// the hospital's cached token).
import type { Redis } from '@simrs/platform/redis';
import type { Config } from '../config.ts';
import { platformClient } from './platform.ts';
import type { PlatformClient } from './platform.ts';
import { sealKeyFrom } from './store.ts';

export interface SatusehatRuntime {
  config: Config;
  sealKey: Buffer;
  platform: PlatformClient | undefined;
}

let runtime: SatusehatRuntime | undefined;

export function useSatusehat(config: Config, redis: Redis | undefined): SatusehatRuntime {
  const sealKey = sealKeyFrom(config);
  const platform = redis
    ? platformClient({ redis, sealKey, timeoutMs: config.SATUSEHAT_TIMEOUT_MS, tokenRetryMs: config.SATUSEHAT_TOKEN_RETRY_MS })
    : undefined;
  runtime = { config, sealKey, platform };
  return runtime;
}

export function satusehatRuntime(): SatusehatRuntime {
  if (!runtime) throw new Error('useSatusehat was not called at start');
  return runtime;
}
