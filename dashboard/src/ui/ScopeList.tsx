import { useTranslation } from 'react-i18next';

const KNOWN = ['openid', 'profile', 'email', 'offline_access', 'simrs:read', 'simrs:write'];

/** OAuth scopes as what they let an application do. */
export function ScopeList({ scopes }: { scopes: string[] }) {
  const { t } = useTranslation();
  return (
    <ul className="scopes">
      {scopes.map((s) => (
        <li key={s} data-scope={s}>
          {KNOWN.includes(s) ? t(`scopes.${s.replace(':', '_') as 'openid'}`) : s} <code>{s}</code>
        </li>
      ))}
    </ul>
  );
}
