import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { LAUNCH_PATIENT_SCOPE, parseSmartScope } from '@simrs/contracts/smart';

type KnownScope = 'openid' | 'profile' | 'email' | 'offline_access' | 'simrs_read' | 'simrs_write' | 'launch_patient';

// A Map: the scopes come from the authorization request, and a plain object would take `constructor` for one.
const KNOWN = new Map<string, KnownScope>([
  ['openid', 'openid'],
  ['profile', 'profile'],
  ['email', 'email'],
  ['offline_access', 'offline_access'],
  ['simrs:read', 'simrs_read'],
  ['simrs:write', 'simrs_write'],
  [LAUNCH_PATIENT_SCOPE, 'launch_patient'],
]);

/** A SMART scope in plain words ("Read patient records and search for patients: only the one patient…"). */
function smartWords(t: TFunction, scope: string): string | undefined {
  const parsed = parseSmartScope(scope);
  if (!parsed) return undefined;
  // Encounter scopes reach visits: their own verbs, the same whose-records clause.
  const verbs = parsed.actions.map((a) => t(parsed.resource === 'Encounter' ? `smart.encounter.${a}` : `smart.${a}`));
  const actions = verbs.length === 1 ? verbs[0]! : `${verbs.slice(0, -1).join(', ')} ${t('smart.and')} ${verbs.at(-1)!}`;
  const sentence = t('smart.sentence', { actions, whose: t(parsed.context === 'user' ? 'smart.user' : 'smart.patient') });
  return sentence[0]!.toUpperCase() + sentence.slice(1);
}

/** OAuth scopes as what they let an application do (the scope itself beside it, for the curious). */
export function ScopeList({ scopes }: { scopes: string[] }) {
  const { t } = useTranslation();
  return (
    <ul className="scopes" id="scope-list">
      {scopes.map((s) => (
        <li key={s} data-scope={s}>
          {KNOWN.has(s) ? t(`scopes.${KNOWN.get(s)!}`) : (smartWords(t, s) ?? s)} <code>{s}</code>
        </li>
      ))}
    </ul>
  );
}
