// The signed-in user as Better Auth's client sees it (GET /api/auth/get-session), and the guards
// that keep pages to the roles allowed to see them.
import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { authClient } from './auth.ts';
import { can } from './permissions.ts';
import type { Capability } from './permissions.ts';
import { Loading, PageTitle } from '../ui/kit.tsx';

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: string;
  tenantId: string;
}

const UserContext = createContext<SignedInUser | undefined>(undefined);

export function useUser(): SignedInUser {
  const user = useContext(UserContext);
  if (!user) throw new Error('useUser outside RequireSession');
  return user;
}

export function useCan(capability: Capability): boolean {
  return can(useUser().role, capability);
}

/** Children only for a signed-in user; others go to the sign-in page and come back afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const { data, isPending } = authClient.useSession();
  const location = useLocation();
  if (isPending && !data) return <Loading />;
  if (!data) {
    const next = location.pathname + location.search;
    return <Navigate to={next === '/' ? '/masuk' : `/masuk?next=${encodeURIComponent(next)}`} replace />;
  }
  const u = data.user;
  const user: SignedInUser = { id: u.id, email: u.email, name: u.name, role: String(u.role ?? ''), tenantId: String(u.tenantId ?? '') };
  return <UserContext.Provider value={user}>{children}</UserContext.Provider>;
}

/** Children only when the role holds the capability; otherwise a plain refusal. */
export function Allowed({ capability, children }: { capability: Capability; children: ReactNode }) {
  const allowed = useCan(capability);
  const { t } = useTranslation();
  if (allowed) return children;
  return (
    <section>
      <PageTitle text={t('common.notAllowedTitle')} />
      <p id="not-allowed">{t('common.notAllowed')}</p>
    </section>
  );
}
