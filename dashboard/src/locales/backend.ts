// Registering a SMART Backend Service on the integrations page: part of the one catalogue, spread
// into id.ts and en.ts (kept apart for file length).

export const backendId = {
  backend: {
    title: 'Daftarkan layanan backend',
    hint: 'Sistem yang membaca data FHIR rumah sakit ini untuk dirinya sendiri, tanpa pengguna (gudang data, registri, analitik), dengan token yang dimintanya memakai JWT yang ditandatangani kunci privatnya sendiri (SMART Backend Services). Di sini didaftarkan kunci publiknya.',
    kind: 'layanan backend',
    name: 'Nama layanan',
    scopes: 'Data yang boleh dibaca dan dicari',
    scopesRequired: 'Pilih sedikitnya satu jenis data.',
    resource: {
      Patient: 'Pasien',
      Encounter: 'Kunjungan',
      Observation: 'Tanda vital',
      Condition: 'Diagnosis',
      AllergyIntolerance: 'Alergi',
      DocumentReference: 'Catatan klinis',
    },
    keys: 'Kunci publik',
    keysInline: 'JWKS (tempel atau pilih berkas)',
    keysUrl: 'URL JWKS yang diambil SIMRS',
    jwks: 'JWKS',
    jwksHint: 'Objek JSON dengan daftar "keys": hanya kunci publik (RS384 atau ES384), tanpa bagian privat.',
    jwksFile: 'Atau baca JWKS dari berkas',
    jwksUrl: 'URL JWKS',
    jwksUrlHint: 'Alamat https tempat layanan menerbitkan kunci publiknya.',
    badJwks: 'Ini bukan JWKS: harus berupa JSON dengan daftar "keys" yang berisi sedikitnya satu kunci.',
    badUrl: 'Masukkan URL https lengkap, misalnya https://gudang.contoh.id/jwks.json.',
    register: 'Daftarkan layanan',
    registered: '{{name}} terdaftar.',
    clientId: 'Client ID',
    howToSign:
      'Layanan menandatangani client assertion-nya ({{algs}}) dengan iss dan sub = client ID ini dan aud = {{url}}, lalu meminta token di alamat itu dengan grant client_credentials.',
  },
};

export const backendEn: typeof backendId = {
  backend: {
    title: 'Register a backend service',
    hint: "A system that reads this hospital's FHIR data for itself, with no user (a data warehouse, a registry, analytics), with tokens it asks for using a JWT signed with its own private key (SMART Backend Services). Its public keys are registered here.",
    kind: 'backend service',
    name: "The service's name",
    scopes: 'Data it may read and search',
    scopesRequired: 'Choose at least one kind of data.',
    resource: {
      Patient: 'Patients',
      Encounter: 'Visits',
      Observation: 'Vital signs',
      Condition: 'Diagnoses',
      AllergyIntolerance: 'Allergies',
      DocumentReference: 'Clinical notes',
    },
    keys: 'Public keys',
    keysInline: 'A JWKS (paste it or choose a file)',
    keysUrl: 'A JWKS URL SIMRS fetches',
    jwks: 'JWKS',
    jwksHint: 'A JSON object with a "keys" list: public keys only (RS384 or ES384), without their private parts.',
    jwksFile: 'Or read the JWKS from a file',
    jwksUrl: 'JWKS URL',
    jwksUrlHint: 'The https address where the service publishes its public keys.',
    badJwks: 'This is not a JWKS: it must be JSON with a "keys" list holding at least one key.',
    badUrl: 'Enter a whole https URL, such as https://warehouse.example.id/jwks.json.',
    register: 'Register the service',
    registered: '{{name}} registered.',
    clientId: 'Client ID',
    howToSign:
      'The service signs its client assertions ({{algs}}) with iss and sub = this client ID and aud = {{url}}, then asks for tokens at that address with the client_credentials grant.',
  },
};
