-- Records' own schema. Patient tables, row-level security and the audit log follow in later migrations.
create schema if not exists records;
