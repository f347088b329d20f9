// The audit log's clinical words: the actions on visits and clinical records, the kinds of clinical
// entry, the break-the-glass marker and the auditor's list of break-the-glass accesses. Part of the
// one catalogue: the actions and filters spread into `audit.actions` and `audit.filterNames` of id.ts
// and en.ts, the rest is `auditClinical`.

export const clinicalActionsId = {
  'kunjungan.list': 'Melihat daftar kunjungan',
  'kunjungan.get': 'Membaca kunjungan',
  'kunjungan.register': 'Mendaftarkan kunjungan',
  'kunjungan.arrive': 'Mencatat kehadiran',
  'kunjungan.start': 'Memulai pemeriksaan',
  'kunjungan.finish': 'Menyelesaikan kunjungan',
  'kunjungan.cancel': 'Membatalkan kunjungan',
  'klinis.riwayat': 'Membaca riwayat klinis',
  'klinis.read': 'Membaca data klinis',
  'klinis.record': 'Mencatat data klinis',
  'klinis.amend': 'Memperbaiki data klinis',
  'klinis.retract': 'Menandai data klinis salah catat',
  'btg.open': 'Membuka rekam klinis (break the glass)',
  'btg.list': 'Membaca daftar akses darurat',
  'bulk.export': 'Memulai ekspor data (Bulk Data)',
  'bulk.download': 'Mengunduh berkas ekspor',
};

export const clinicalActionsEn: typeof clinicalActionsId = {
  'kunjungan.list': 'Listed visits',
  'kunjungan.get': 'Read a visit',
  'kunjungan.register': 'Registered a visit',
  'kunjungan.arrive': 'Checked a patient in',
  'kunjungan.start': 'Started a visit',
  'kunjungan.finish': 'Finished a visit',
  'kunjungan.cancel': 'Cancelled a visit',
  'klinis.riwayat': 'Read the clinical history',
  'klinis.read': 'Read clinical entries',
  'klinis.record': 'Recorded a clinical entry',
  'klinis.amend': 'Corrected a clinical entry',
  'klinis.retract': 'Marked a clinical entry entered in error',
  'btg.open': 'Opened a clinical record (break the glass)',
  'btg.list': 'Read the break-the-glass accesses',
  'bulk.export': 'Started a data export (Bulk Data)',
  'bulk.download': 'Downloaded an export file',
};

/** The filters of the clinical listings, as the audit rows name them. */
export const clinicalFilterNamesId = {
  poliId: 'poli',
  tanggal: 'tanggal',
  status: 'status',
  breakGlass: 'akses darurat',
  userId: 'pengguna',
};

export const clinicalFilterNamesEn: typeof clinicalFilterNamesId = {
  poliId: 'clinic',
  tanggal: 'date',
  status: 'status',
  breakGlass: 'emergency access',
  userId: 'user',
};

export const auditClinicalId = {
  auditClinical: {
    everyAccess: 'Semua akses',
    kind: 'Jenis: {{kind}}',
    kinds: { vital: 'tanda vital', diagnosis: 'diagnosis', alergi: 'alergi', catatan: 'catatan SOAP' },
    reason: 'Alasan: {{reason}}',
    breakGlass: 'Akses darurat',
    btg: {
      title: 'Akses darurat (break the glass)',
      lead: 'Setiap kali seorang klinisi membuka rekam klinis pasien tanpa hubungan perawatan, dengan alasan yang ia tulis. Terbaru lebih dulu.',
      none: 'Belum ada akses darurat.',
      opened: 'Dibuka',
      until: 'Berlaku sampai',
      active: 'masih berlaku',
      expired: 'sudah berakhir',
    },
  },
};

export const auditClinicalEn: typeof auditClinicalId = {
  auditClinical: {
    everyAccess: 'Every access',
    kind: 'Kind: {{kind}}',
    kinds: { vital: 'vital signs', diagnosis: 'diagnosis', alergi: 'allergy', catatan: 'SOAP note' },
    reason: 'Reason: {{reason}}',
    breakGlass: 'Emergency access',
    btg: {
      title: 'Emergency accesses (break the glass)',
      lead: "Every time a clinician opened a patient's clinical record without a treatment relationship, with the reason they wrote. Newest first.",
      none: 'No emergency access yet.',
      opened: 'Opened',
      until: 'Valid until',
      active: 'still valid',
      expired: 'ended',
    },
  },
};
