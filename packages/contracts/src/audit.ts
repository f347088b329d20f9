// The actions the audit trail records: records writes them, its listing filters by them, and the
// dashboard's auditor page offers them, so the list is written once here.
export const AUDIT_ACTIONS = [
  'pasien.list',
  'pasien.get',
  'pasien.create',
  'pasien.update',
  'pasien.archive',
  'audit.list',
  'kunjungan.list',
  'kunjungan.get',
  'kunjungan.register',
  'kunjungan.arrive',
  'kunjungan.start',
  'kunjungan.finish',
  'kunjungan.cancel',
  'klinis.riwayat',
  'btg.open',
  'btg.list',
  'klinis.read',
  'klinis.record',
  'klinis.amend',
  'klinis.retract',
  'bulk.export',
  'bulk.download',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
