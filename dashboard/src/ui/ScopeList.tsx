import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { LAUNCH_PATIENT_SCOPE, parseSmartScope } from '@simrs/contracts/smart';
import type { SmartResource } from '@simrs/contracts/smart';
import type { oauthId } from '../locales/oauth.ts';

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

/** The locale group of each resource type's verbs; Patient (and `*`, every type) uses the patient verbs. */
const VERBS: Partial<Record<SmartResource | '*', 'encounter' | 'observation' | 'condition' | 'allergy' | 'document'>> = {
  Encounter: 'encounter',
  Observation: 'observation',
  Condition: 'condition',
  AllergyIntolerance: 'allergy',
  DocumentReference: 'document',
};

/** The category a scope narrows to, in plain words ("vital signs only"); the bare code for one the locales lack. */
function categoryWords(t: TFunction, category: string): string {
  const code = category.slice(category.indexOf('|') + 1) as keyof typeof oauthId.smart.category;
  return t(`smart.category.${code}`, { defaultValue: code });
}

/** A SMART scope in plain words ("Read patient records and search for patients: only the one patient…"). */
function smartWords(t: TFunction, scope: string): string | undefined {
  const parsed = parseSmartScope(scope);
  if (!parsed) return undefined;
  // Each resource type has its own verbs, and the same whose-records clause.
  const group = VERBS[parsed.resource];
  const verbs = parsed.actions.map((a) => t(group ? `smart.${group}.${a}` : `smart.${a}`));
  const actions = verbs.length === 1 ? verbs[0]! : `${verbs.slice(0, -1).join(', ')} ${t('smart.and')} ${verbs.at(-1)!}`;
  const whose = t(`smart.${parsed.context}`);
  const sentence = parsed.category
    ? t('smart.sentenceCategory', { actions, category: categoryWords(t, parsed.category), whose })
    : t('smart.sentence', { actions, whose });
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
