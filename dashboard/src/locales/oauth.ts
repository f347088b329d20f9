// The OAuth pages' strings (consent, the SMART patient picker, SMART scopes in plain words), in both
// languages: part of the one catalogue, spread into id.ts and en.ts (kept apart only for file length).

export const oauthId = {
  // Cakupan SMART dalam kata-kata biasa: "<tindakan>: <data siapa>".
  smart: {
    create: 'mendaftarkan pasien baru',
    read: 'membaca data pasien',
    update: 'memperbaiki data pasien',
    delete: 'mengarsipkan (menghapus) pasien',
    search: 'mencari pasien',
    user: 'pasien mana pun di rumah sakit Anda, sejauh peran Anda mengizinkan',
    patient: 'hanya satu pasien yang dipilih untuk aplikasi ini',
    and: 'dan',
    sentence: '{{actions}}: {{whose}}',
    encounter: {
      create: 'mendaftarkan kunjungan',
      read: 'membaca data kunjungan',
      update: 'mengubah status kunjungan',
      delete: 'membatalkan kunjungan',
      search: 'mencari kunjungan',
    },
    observation: {
      create: 'mencatat hasil pemeriksaan',
      read: 'membaca hasil pemeriksaan',
      update: 'memperbaiki hasil pemeriksaan',
      delete: 'menghapus hasil pemeriksaan',
      search: 'mencari hasil pemeriksaan',
    },
    condition: {
      create: 'mencatat diagnosis',
      read: 'membaca diagnosis',
      update: 'memperbaiki diagnosis',
      delete: 'menghapus diagnosis',
      search: 'mencari diagnosis',
    },
    allergy: {
      create: 'mencatat alergi',
      read: 'membaca data alergi',
      update: 'memperbaiki data alergi',
      delete: 'menghapus data alergi',
      search: 'mencari data alergi',
    },
    document: {
      create: 'menulis catatan klinis (SOAP)',
      read: 'membaca catatan klinis',
      update: 'mengubah catatan klinis',
      delete: 'menghapus catatan klinis',
      search: 'mencari catatan klinis',
    },
    // Cakupan yang dibatasi satu kategori (`?category=`): "<tindakan> (<kategori>): <data siapa>".
    sentenceCategory: '{{actions}} ({{category}}): {{whose}}',
    category: {
      'vital-signs': 'hanya tanda vital',
      'encounter-diagnosis': 'hanya diagnosis kunjungan',
    },
  },
  consent: {
    title: 'Izinkan akses',
    heading: 'Izinkan {{client}} memakai akun SIMRS Anda?',
    unknownClient: 'Sebuah aplikasi',
    signedInAs: 'Masuk sebagai {{email}} di {{hospital}}.',
    asks: 'Aplikasi ini meminta izin untuk:',
    goesBackTo: 'Setelah Anda menjawab, Anda kembali ke {{host}}.',
    allow: 'Izinkan',
    deny: 'Tolak',
    otherHospital: 'Aplikasi ini tidak dikenal di sini atau milik rumah sakit lain: aplikasi ini tidak dapat memakai akun Anda.',
    goBack: 'Kembali',
    invalid: 'Permintaan otorisasi ini tidak sah. Kembali ke aplikasi dan mulai lagi.',
    continuing: 'Melanjutkan ke aplikasi…',
    choosePatient: 'Pilih pasien terlebih dahulu.',
  },
  picker: {
    title: 'Pilih pasien',
    search: 'Cari berdasarkan nama, NIK atau nomor rekam medis',
    none: 'Tidak ada pasien yang ditemukan.',
    chosen: 'Dipilih: {{name}} (RM {{noRm}})',
    item: '{{name}} · RM {{noRm}} · lahir {{born}}',
  },
};

export const oauthEn: typeof oauthId = {
  // SMART scopes in plain words: "<actions>: <whose records>", e.g. "Read patient records and search
  // for patients: only the one patient chosen for this app".
  smart: {
    create: 'register new patients',
    read: 'read patient records',
    update: 'correct patient records',
    delete: 'archive (delete) patients',
    search: 'search for patients',
    user: 'any patient in your hospital, as far as your role allows',
    patient: 'only the one patient chosen for this app',
    and: 'and',
    sentence: '{{actions}}: {{whose}}',
    encounter: {
      create: 'register visits',
      read: 'read visits',
      update: 'change the status of visits',
      delete: 'cancel visits',
      search: 'search visits',
    },
    observation: {
      create: 'record observations',
      read: 'read observations',
      update: 'correct observations',
      delete: 'delete observations',
      search: 'search observations',
    },
    condition: {
      create: 'record diagnoses',
      read: 'read diagnoses',
      update: 'correct diagnoses',
      delete: 'delete diagnoses',
      search: 'search diagnoses',
    },
    allergy: {
      create: 'record allergies',
      read: 'read allergies',
      update: 'correct allergies',
      delete: 'delete allergies',
      search: 'search allergies',
    },
    document: {
      create: 'write clinical notes (SOAP)',
      read: 'read clinical notes',
      update: 'amend clinical notes',
      delete: 'delete clinical notes',
      search: 'search clinical notes',
    },
    // Scopes narrowed to one category (`?category=`): "<actions> (<category>): <whose records>".
    sentenceCategory: '{{actions}} ({{category}}): {{whose}}',
    category: {
      'vital-signs': 'vital signs only',
      'encounter-diagnosis': 'encounter diagnoses only',
    },
  },
  consent: {
    title: 'Allow access',
    heading: 'Allow {{client}} to use your SIMRS account?',
    unknownClient: 'An application',
    signedInAs: 'Signed in as {{email}} at {{hospital}}.',
    asks: 'It asks to:',
    goesBackTo: 'After your answer you go back to {{host}}.',
    allow: 'Allow',
    deny: 'Deny',
    otherHospital: 'This application is unknown here or belongs to another hospital: it cannot use your account.',
    goBack: 'Go back',
    invalid: 'This authorization request is not valid. Go back to the application and start again.',
    continuing: 'Continuing to the application…',
    choosePatient: 'Choose the patient first.',
  },
  picker: {
    title: 'Choose the patient',
    search: 'Search by name, NIK or medical-record number',
    none: 'No patient found.',
    chosen: 'Chosen: {{name}} (MR {{noRm}})',
    item: '{{name}} · MR {{noRm}} · born {{born}}',
  },
};
