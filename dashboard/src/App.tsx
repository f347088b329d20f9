// Routes. The gateway answers every one of these paths with index.html (gateway/src/dashboard). The
// paths identity must know too (sign-in, consent, patient picker, device) are @simrs/contracts/dashboard's.
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { useTranslation } from 'react-i18next';
import { Layout } from './ui/Layout.tsx';
import { Loading, PageTitle } from './ui/kit.tsx';
import { Allowed, RequireSession, useUser } from './lib/session.tsx';
import { homeFor } from './lib/permissions.ts';
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
        <Route
          path="pasien"
          element={
            <Allowed capability="pasien.list">
              <PatientList />
            </Allowed>
          }
        />
        <Route
          path="pasien/baru"
          element={
            <Allowed capability="pasien.create">
              <Lazy>
                <PatientCreate />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="pasien/:id"
          element={
            <Allowed capability="pasien.read">
              <Lazy>
                <PatientPage />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="pasien/:id/ubah"
          element={
            <Allowed capability="pasien.update">
              <Lazy>
                <PatientEdit />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="audit"
          element={
            <Allowed capability="audit.read">
              <Lazy>
                <AuditLog />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="akun"
          element={
            <Lazy>
              <Account />
            </Lazy>
          }
        />
        <Route
          path="perangkat"
          element={
            <Lazy>
              <Device />
            </Lazy>
          }
        />
        <Route path="admin" element={<Navigate to="/admin/pengguna" replace />} />
        <Route
          path="admin/pengguna"
          element={
            <Allowed capability="tenant.admin">
              <Lazy>
                <AdminUsers />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="admin/integrasi"
          element={
            <Allowed capability="tenant.admin">
              <Lazy>
                <AdminIntegrations />
              </Lazy>
            </Allowed>
          }
        />
        <Route
          path="admin/perangkat"
          element={
            <Allowed capability="tenant.admin">
              <Lazy>
                <AdminDevices />
              </Lazy>
            </Allowed>
          }
        />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

function Lazy({ children }: { children: React.ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}
