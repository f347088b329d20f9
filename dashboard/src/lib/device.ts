// A session's user agent as a person reads it ("Chrome 140 on Linux, desktop"), with bowser.
import Bowser from 'bowser';

export interface Device {
  browser: string;
  os: string;
  kind: 'desktop' | 'mobile' | 'tablet' | 'tv' | 'unknown';
}

export function describeAgent(userAgent: string | null): Device | undefined {
  if (!userAgent) return undefined;
  const parsed = Bowser.parse(userAgent);
  const major = parsed.browser.version?.split('.')[0];
  const browser = [parsed.browser.name, major].filter(Boolean).join(' ');
  const os = [parsed.os.name, parsed.os.versionName ?? parsed.os.version].filter(Boolean).join(' ');
  const type = parsed.platform.type;
  const kind = type === 'desktop' || type === 'mobile' || type === 'tablet' || type === 'tv' ? type : 'unknown';
  if (!browser && !os) return undefined;
  return { browser: browser || '?', os: os || '?', kind };
}
