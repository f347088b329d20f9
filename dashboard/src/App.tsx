// Routes. The gateway answers every one of these paths with index.html (gateway/src/dashboard). The
// paths identity must know too (sign-in, consent, patient picker, device) are @simrs/contracts/dashboard's.
import { lazy, Suspense } from 'react';
import type { ComponentType } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { useTranslation } from 'react-i18next';
import { Layout } from './ui/Layout.tsx';
import { Loading, PageTitle } from './ui/kit.tsx';
import { Allowed, RequireSession, useUser } from './lib/session.tsx';
import { homeFor } from './lib/permissions.ts';
import type { Capability } from './lib/permissions.ts';
import { SignIn } from './pages/SignIn.tsx';
import { PatientList } from './pages/PatientList.tsx';

const PatientPage = lazy(() => import('./pages/PatientPage.tsx'));
const PatientCreate = lazy(() => import('./pages/PatientForm.tsx').then((m) => ({ default: m.PatientCreate })));
const PatientEdit = lazy(() => import('./pages/PatientForm.tsx').then((m) => ({ default: m.PatientEdit })));
const AuditLog = lazy(() => import('./pages/AuditLog.tsx'));
const Account = lazy(() => import('./pages/Account.tsx'));
const Device = lazy(() => import('./pages/Device.tsx'));
const Consent = lazy(() => import('./pages/Consent.tsx'));
const AdminUsers = lazy(() => import('./pages/AdminUsers.tsx'));
const AdminIntegrations = lazy(() => import('./pages/AdminIntegrations.tsx'));
const AdminDevices = lazy(() => import('./pages/AdminDevices.tsx'));
const AdminExport = lazy(() => import('./pages/AdminExport.tsx'));
// The clinic's day: clinical pages load on demand, so the first load stays within its budget.
const Worklist = lazy(() => import('./pages/Worklist.tsx'));
const VisitPage = lazy(() => import('./pages/VisitPage.tsx'));
const ClinicalRecord = lazy(() => import('./pages/ClinicalRecord.tsx'));
const FrontDesk = lazy(() => import('./pages/FrontDesk.tsx'));
const AdminClinics = lazy(() => import('./pages/AdminClinics.tsx'));
const AdminSatusehat = lazy(() => import('./pages/AdminSatusehat.tsx'));

function Home() {
  return <Navigate to={homeFor(useUser().role)} replace />;
}

function NotFound() {
  const { t } = useTranslation();
  return (
    <section>
      <PageTitle text={t('common.notFoundTitle')} />
      <p>{t('common.notFound')}</p>
    </section>
  );
}

/** A page inside the signed-in layout: its path, who may open it, and whether its code loads on demand. */
interface PageRoute {
  path: string;
  page: ComponentType;
  capability?: Capability;
  /** Bundled with the app rather than loaded on demand (no Suspense around it). */
  eager?: boolean;
}

const PAGES: PageRoute[] = [
  { path: 'pasien', page: PatientList, capability: 'pasien.list', eager: true },
  { path: 'pasien/baru', page: PatientCreate, capability: 'pasien.create' },
  { path: 'pasien/:id', page: PatientPage, capability: 'pasien.read' },
  { path: 'pasien/:id/ubah', page: PatientEdit, capability: 'pasien.update' },
  { path: 'pasien/:id/klinis', page: ClinicalRecord, capability: 'clinical.read' },
  { path: 'antrean', page: Worklist, capability: 'kunjungan.start' },
  { path: 'kunjungan/:id', page: VisitPage, capability: 'clinical.read' },
  { path: 'pendaftaran', page: FrontDesk, capability: 'kunjungan.register' },
  { path: 'admin/poli', page: AdminClinics, capability: 'poli.manage' },
  { path: 'admin/satusehat', page: AdminSatusehat, capability: 'satusehat.read' },
  { path: 'audit', page: AuditLog, capability: 'audit.read' },
  { path: 'akun', page: Account },
  { path: 'perangkat', page: Device },
  { path: 'admin/pengguna', page: AdminUsers, capability: 'tenant.admin' },
  { path: 'admin/integrasi', page: AdminIntegrations, capability: 'tenant.admin' },
  { path: 'admin/perangkat', page: AdminDevices, capability: 'tenant.admin' },
  { path: 'admin/ekspor', page: AdminExport, capability: 'tenant.admin' },
];

function pageElement({ page: Page, capability, eager }: PageRoute) {
  const content = eager ? (
    <Page />
  ) : (
    <Lazy>
      <Page />
    </Lazy>
  );
  return capability ? <Allowed capability={capability}>{content}</Allowed> : content;
}

export function App() {
  return (
    <Routes>
      <Route path={DASHBOARD.signIn} element={<SignIn />} />
      {/* OAuth consent, with or without a patient to choose: standalone pages (Consent.tsx checks the session). */}
      {[DASHBOARD.consent, DASHBOARD.patientPicker].map((path) => (
        <Route
          key={path}
          path={path}
          element={
            <Lazy>
              <Consent />
            </Lazy>
          }
        />
      ))}
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route index element={<Home />} />
        {PAGES.map((route) => (
          <Route key={route.path} path={route.path} element={pageElement(route)} />
        ))}
        <Route path="admin" element={<Navigate to="/admin/pengguna" replace />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
function Lazy({ children }: { children: React.ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}
