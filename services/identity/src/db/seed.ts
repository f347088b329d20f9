// Development data (idempotent): two hospitals and their people. Nobody gets mail; they sign in from
// the dashboard's /masuk with an e-mail code or a magic link (read them in the local mail catcher).
// `node src/db/seed.ts` with DATABASE_URL (it migrates first), or SEED_DEMO_DATA=true at start.
import type { Role } from '@simrs/contracts/access';
import type { Directory } from '../directory/index.ts';

export const DEMO_TENANTS: { id: string; name: string; users: { email: string; name: string; role: Role }[] }[] = [
  {
    id: 'rs-demo',
    name: 'RS Demo Sehat',
    users: [
      { email: 'admin@rs-demo.test', name: 'Admin RS Demo', role: 'tenant_admin' },
      { email: 'dokter@rs-demo.test', name: 'dr. Dokter Demo', role: 'doctor' },
      { email: 'perawat@rs-demo.test', name: 'Perawat Demo', role: 'nurse' },
      { email: 'pendaftaran@rs-demo.test', name: 'Petugas Pendaftaran Demo', role: 'registration_clerk' },
      { email: 'auditor@rs-demo.test', name: 'Auditor Demo', role: 'auditor' },
    ],
  },
  {
    id: 'rs-lain',
    name: 'RS Lain Harapan',
    users: [{ email: 'admin@rs-lain.test', name: 'Admin RS Lain', role: 'tenant_admin' }],
  },
];

/** Creates what is missing; never changes what exists (a role changed by hand stays changed). */
export async function seedDemoData(directory: Directory): Promise<{ tenants: number; users: number }> {
  let tenants = 0;
  let users = 0;
  for (const tenant of DEMO_TENANTS) {
    if (await directory.createTenant(tenant.id, tenant.name)) tenants++;
    for (const user of tenant.users) {
      if (await directory.createUser({ tenantId: tenant.id, ...user, emailVerified: true })) users++;
    }
  }
  return { tenants, users };
}

if (import.meta.main) {
  const { createPool } = await import('@simrs/platform/db');
  const { loadConfig, urlWith, z } = await import('@simrs/platform/config');
  const { createDirectory } = await import('../directory/index.ts');
  const { migrationConfig, migrateIdentity } = await import('./migrate.ts');
  const { log } = await import('../server/index.ts');
  const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql') }));
  const pool = createPool(env.DATABASE_URL, { max: 2 });
  await migrateIdentity(migrationConfig(), pool, log);
  const created = await seedDemoData(createDirectory(pool));
  await pool.end();
  log.info(created, 'identity demo data seeded');
}
