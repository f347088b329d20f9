import { createLogger } from '@simrs/platform/logger';

export const log = createLogger('identity');
