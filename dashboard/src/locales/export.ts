// The hospital's data export (Bulk Data $export of everything): part of the one catalogue, spread
// into id.ts and en.ts (kept apart for file length).

export const exportId = {
  dataExport: {
    nav: 'Ekspor data',
    title: 'Ekspor semua data rumah sakit ini',
    lead: 'Semua pasien, kunjungan, tanda vital, diagnosis dan alergi rumah sakit ini sebagai berkas FHIR NDJSON, satu berkas per jenis. Ekspor dicatat di log audit; berkasnya tersedia sampai waktu kedaluwarsanya.',
    start: 'Mulai ekspor',
    running: 'Ekspor berjalan: {{progress}}',
    busy: 'Ekspor lain rumah sakit ini sedang berjalan. Coba lagi nanti.',
    failed: 'Ekspor gagal. Mulai lagi.',
    done: 'Ekspor selesai ({{time}}). Berkas tersedia sampai {{expires}}.',
    files: 'Berkas',
    file: '{{type}}: {{count}} baris',
    none: 'Tidak ada data untuk diekspor.',
  },
};

export const exportEn: typeof exportId = {
  dataExport: {
    nav: 'Data export',
    title: 'Export all data of this hospital',
    lead: 'Every patient, visit, vital sign, diagnosis and allergy of this hospital as FHIR NDJSON files, one file per type. The export is recorded in the audit log; its files stay available until they expire.',
    start: 'Start the export',
    running: 'Export running: {{progress}}',
    busy: 'Another export of this hospital is running. Try again later.',
    failed: 'The export failed. Start it again.',
    done: 'Export finished ({{time}}). The files are available until {{expires}}.',
    files: 'Files',
    file: '{{type}}: {{count}} lines',
    none: 'There is no data to export.',
  },
};
