// The frame around every signed-in page: skip link, the hospital and the person, navigation by role,
// language, sign-out.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { authClient, identity } from '../lib/auth.ts';
import { LanguageSelect } from './LanguageSelect.tsx';
import { useCan, useUser } from '../lib/session.tsx';

export function Layout() {
  const { t } = useTranslation();
  const user = useUser();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // The hospital by name (the session only carries its id); a hospital's name does not change often.
  const me = useQuery({ queryKey: ['identity', 'me'], queryFn: identity.me, staleTime: 10 * 60_000 });
  const links = [
    useCan('kunjungan.start') && { to: '/antrean', label: t('nav.worklist') },
    useCan('kunjungan.register') && { to: '/pendaftaran', label: t('nav.frontDesk') },
    useCan('pasien.list') && { to: '/pasien', label: t('nav.patients') },
    useCan('audit.read') && { to: '/audit', label: t('nav.audit') },
    useCan('tenant.admin') && { to: '/admin/pengguna', label: t('nav.users') },
    useCan('poli.manage') && { to: '/admin/poli', label: t('nav.clinics') },
    useCan('satusehat.read') && { to: '/admin/satusehat', label: t('satusehat.nav') },
    useCan('tenant.admin') && { to: '/admin/integrasi', label: t('nav.integrations') },
    useCan('tenant.admin') && { to: '/admin/perangkat', label: t('nav.deviceRequests') },
    useCan('tenant.admin') && { to: '/admin/ekspor', label: t('dataExport.nav') },
    { to: '/akun', label: t('nav.account') },
  ].filter((l): l is { to: string; label: string } => Boolean(l));

  async function signOut() {
    await authClient.signOut();
    queryClient.clear();
    navigate('/masuk', { replace: true });
  }

  return (
    <>
      <a className="skip-link" href="#main">
        {t('nav.skip')}
      </a>
      <header className="site-header">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ✚
          </span>
          <span>
            <strong>SIMRS</strong>
            <span className="tenant" id="tenant-id" title={user.tenantId}>
              {me.data?.tenant.name ?? user.tenantId}
            </span>
          </span>
        </div>
        <nav aria-label={t('nav.main')}>
          <ul>
            {links.map((l) => (
              <li key={l.to}>
                <NavLink to={l.to}>{l.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span id="current-user" title={user.email}>
            {user.name} · <span id="current-role">{t(`role.${user.role as 'doctor'}`, { defaultValue: user.role })}</span>
          </span>
          <LanguageSelect compact />
          <button id="sign-out" type="button" className="secondary" onClick={() => void signOut()}>
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <a href="/playground/">{t('nav.playground')}</a> · <a href="/api/v1/docs">{t('nav.apiDocs')}</a>
      </footer>
    </>
  );
}
