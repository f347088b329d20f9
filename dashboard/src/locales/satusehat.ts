// SATUSEHAT sending (the admin's page, a visit's sync state): part of the one catalogue, spread into
// id.ts and en.ts (kept apart for file length).

export const satusehatId = {
  satusehat: {
    nav: 'SATUSEHAT',
    title: 'Pengiriman ke SATUSEHAT',
    lead: 'Setiap kunjungan yang selesai dikirim ke SATUSEHAT. Di sini tampak kunjungan yang gagal (dengan pesan dari platform) atau belum lengkap (dengan yang kurang); kirim ulang setelah diperbaiki.',
    filter: 'Tampilkan',
    all: 'Semua',
    empty: 'Tidak ada kunjungan dengan status ini.',
    visit: 'Kunjungan',
    date: 'Tanggal',
    stateLabel: 'Status',
    reason: 'Alasan',
    attempts: 'Percobaan',
    resend: 'Kirim ulang',
    resendVisit: 'Kirim ulang kunjungan {{no}}',
    resent: 'Kunjungan {{no}} diantrekan untuk dikirim ulang.',
    state: { queued: 'Menunggu dikirim', sent: 'Terkirim', failed: 'Gagal', incomplete: 'Belum lengkap' },
    sync: 'SATUSEHAT',
    never: 'Belum dikirim',
  },
};

export const satusehatEn: typeof satusehatId = {
  satusehat: {
    nav: 'SATUSEHAT',
    title: 'Sending to SATUSEHAT',
    lead: "Every finished visit is sent to SATUSEHAT. Here are the visits that failed (with the platform's message) or are incomplete (with what is missing); resend them after the fix.",
    filter: 'Show',
    all: 'All',
    empty: 'No visit in this state.',
    visit: 'Visit',
    date: 'Date',
    stateLabel: 'State',
    reason: 'Reason',
    attempts: 'Attempts',
    resend: 'Resend',
    resendVisit: 'Resend visit {{no}}',
    resent: 'Visit {{no}} is queued to be sent again.',
    state: { queued: 'Waiting to be sent', sent: 'Sent', failed: 'Failed', incomplete: 'Incomplete' },
    sync: 'SATUSEHAT',
    never: 'Not sent yet',
  },
};
