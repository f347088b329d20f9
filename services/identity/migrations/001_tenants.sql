-- Tenants (hospitals) and the tenant, role and active flag of each user. The "user" table itself is
-- Better Auth's (created by its migrations, which run first); these columns are declared there as
-- additional fields, and the constraints below keep the data honest whoever writes it.
create table if not exists tenant (
  id text primary key check (id ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

alter table "user"
  add constraint user_tenant_fk foreign key ("tenantId") references tenant (id),
  add constraint user_role_check check (role in ('tenant_admin', 'doctor', 'nurse', 'registration_clerk', 'auditor'));

create index if not exists user_tenant_idx on "user" ("tenantId");
