// The language of identity's pages: the one the person chose in the dashboard (its `simrs_lang`
// cookie, on the same site), Indonesian by default as in the dashboard, English selectable. What the
// server writes into the HTML and what each page's script says later (`script` below, handed to the
// script as a JSON data block: the CSP allows no inline code) are both here.

import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';

export const LANGUAGE_COOKIE = 'simrs_lang';
export type PageLocale = 'id' | 'en';

/** The chosen language from a Cookie header: `en` (or `en-US`...) is English, anything else Indonesian. */
export function pageLocale(cookieHeader: string | undefined): PageLocale {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === LANGUAGE_COOKIE)
      return /^en\b/i.test(decodeURIComponent(part.slice(eq + 1).trim())) ? 'en' : 'id';
  }
  return 'id';
}

const en = {
  scopes: {
    openid: 'Know who you are (your SIMRS account id)',
    profile: 'See your name',
    email: 'See your e-mail address',
    offline_access: 'Stay connected while you are away (refresh tokens)',
    [SCOPE_READ]: "Read your hospital's records (patients), as your role allows",
    [SCOPE_WRITE]: "Create and change your hospital's records, as your role allows",
  } as Record<string, string>,
  signIn: {
    title: 'Sign in',
    heading: 'Sign in to SIMRS',
    email: 'E-mail address',
    sendCode: 'E-mail me a code',
    sendLink: 'E-mail me a sign-in link',
    code: '6-digit code',
    verify: 'Sign in',
    passkey: 'Sign in with a passkey',
  },
  consent: {
    title: 'Allow access',
    unknownTitle: 'Unknown application',
    unknownText: 'This authorization request is not valid. Go back to the application and start again.',
    heading: (client: string) => `Allow ${client} to use your SIMRS account?`,
    signedInAs: (email: string, hospital: string) => `Signed in as ${email} at ${hospital}.`,
    asks: 'It asks to',
    goesBackTo: (host: string) => `After your answer you go back to ${host}.`,
    allow: 'Allow',
    deny: 'Deny',
    otherHospital: 'This application belongs to another hospital: it cannot use your account.',
    goBack: 'Go back',
  },
  device: {
    title: 'Connect a device',
    code: 'The code shown on your device',
    continue: 'Continue',
    tooMany: 'Too many attempts. Wait a while and try again.',
    expired: 'That code has expired. Start again on your device.',
    invalid: 'That code is not valid. Check it and try again.',
    answered: 'This request was answered already. Start again on your device if you need to.',
    otherAccount: 'This code is meant for another account.',
    otherHospital: 'This device request comes from an application of another hospital.',
    heading: (client: string) => `Connect ${client}?`,
    codeShown: 'Code',
    onlyIfYou: 'Approve only if you started this on your own device just now.',
    approve: 'Approve',
    deny: 'Deny',
  },
  application: (id: string) => `Application ${id}`,
  /** What the pages' scripts say (assets/*.js read them with text()). */
  script: {
    continueApp: 'Sign in to continue to the application that sent you here.',
    failed: 'Signing in did not work. Try again.',
    INVALID_TOKEN: 'That sign-in link has expired or was used already. Ask for a new one below.',
    ACCOUNT_DISABLED: 'This account cannot sign in.',
    new_user_signup_disabled: 'That sign-in link cannot be used.',
    INVALID_OTP: 'That code is not right. Check it, or ask for a new one.',
    OTP_EXPIRED: 'That code has expired: ask for a new one.',
    TOO_MANY_ATTEMPTS: 'Too many wrong codes: ask for a new one.',
    enterEmail: 'Enter your e-mail address.',
    codeSent: 'If that address has an account, a 6-digit code is on its way. It is valid for 5 minutes.',
    linkSent: 'If that address has an account, a sign-in link is on its way. It is valid for 5 minutes.',
    noPasskeys: 'This browser does not support passkeys.',
    passkeyCancelled: 'Passkey sign-in was cancelled.',
    noAnswer: 'No answer from the server. Go back to the application and start again.',
    choosePatient: 'Choose the patient first.',
    allowed: 'Allowed. Returning to the application…',
    denied: 'Denied. Returning to the application…',
    deviceApproved: 'Approved. Your device is connected: you can close this page.',
    deviceDenied: 'Denied. The device will not get access.',
  } as Record<string, string>,
};

export type PageText = typeof en;

const id: PageText = {
  scopes: {
    openid: 'Mengetahui siapa Anda (ID akun SIMRS)',
    profile: 'Melihat nama Anda',
    email: 'Melihat alamat e-mail Anda',
    offline_access: 'Tetap terhubung saat Anda tidak aktif (refresh token)',
    [SCOPE_READ]: 'Membaca rekam rumah sakit Anda (pasien), sesuai peran Anda',
    [SCOPE_WRITE]: 'Membuat dan mengubah rekam rumah sakit Anda, sesuai peran Anda',
  },
  signIn: {
    title: 'Masuk',
    heading: 'Masuk ke SIMRS',
    email: 'Alamat e-mail',
    sendCode: 'Kirimi saya kode lewat e-mail',
    sendLink: 'Kirimi saya tautan masuk lewat e-mail',
    code: 'Kode 6 digit',
    verify: 'Masuk',
    passkey: 'Masuk dengan passkey',
  },
  consent: {
    title: 'Izinkan akses',
    unknownTitle: 'Aplikasi tidak dikenal',
    unknownText: 'Permintaan otorisasi ini tidak sah. Kembali ke aplikasi dan mulai lagi.',
    heading: (client) => `Izinkan ${client} memakai akun SIMRS Anda?`,
    signedInAs: (email, hospital) => `Masuk sebagai ${email} di ${hospital}.`,
    asks: 'Aplikasi ini meminta izin untuk',
    goesBackTo: (host) => `Setelah Anda menjawab, Anda kembali ke ${host}.`,
    allow: 'Izinkan',
    deny: 'Tolak',
    otherHospital: 'Aplikasi ini milik rumah sakit lain: aplikasi ini tidak dapat memakai akun Anda.',
    goBack: 'Kembali',
  },
  device: {
    title: 'Hubungkan perangkat',
    code: 'Kode yang tampil di perangkat Anda',
    continue: 'Lanjutkan',
    tooMany: 'Terlalu banyak percobaan. Tunggu sebentar lalu coba lagi.',
    expired: 'Kode itu sudah kedaluwarsa. Mulai lagi di perangkat Anda.',
    invalid: 'Kode itu tidak sah. Periksa lalu coba lagi.',
    answered: 'Permintaan ini sudah dijawab. Mulai lagi di perangkat Anda bila perlu.',
    otherAccount: 'Kode ini ditujukan untuk akun lain.',
    otherHospital: 'Permintaan perangkat ini berasal dari aplikasi rumah sakit lain.',
    heading: (client) => `Hubungkan ${client}?`,
    codeShown: 'Kode',
    onlyIfYou: 'Setujui hanya jika Anda sendiri yang baru saja memulainya di perangkat Anda.',
    approve: 'Setujui',
    deny: 'Tolak',
  },
  application: (id) => `Aplikasi ${id}`,
  script: {
    continueApp: 'Masuk untuk melanjutkan ke aplikasi yang mengirim Anda ke sini.',
    failed: 'Gagal masuk. Coba lagi.',
    INVALID_TOKEN: 'Tautan masuk itu sudah kedaluwarsa atau sudah dipakai. Minta yang baru di bawah.',
    ACCOUNT_DISABLED: 'Akun ini tidak dapat masuk.',
    new_user_signup_disabled: 'Tautan masuk itu tidak dapat dipakai.',
    INVALID_OTP: 'Kode itu salah. Periksa, atau minta kode baru.',
    OTP_EXPIRED: 'Kode itu sudah kedaluwarsa: minta kode baru.',
    TOO_MANY_ATTEMPTS: 'Terlalu banyak kode salah: minta kode baru.',
    enterEmail: 'Masukkan alamat e-mail Anda.',
    codeSent: 'Jika alamat itu memiliki akun, kode 6 digit sedang dikirim. Berlaku 5 menit.',
    linkSent: 'Jika alamat itu memiliki akun, tautan masuk sedang dikirim. Berlaku 5 menit.',
    noPasskeys: 'Peramban ini tidak mendukung passkey.',
    passkeyCancelled: 'Masuk dengan passkey dibatalkan.',
    noAnswer: 'Server tidak menjawab. Kembali ke aplikasi dan mulai lagi.',
    choosePatient: 'Pilih pasien terlebih dahulu.',
    allowed: 'Diizinkan. Kembali ke aplikasi…',
    denied: 'Ditolak. Kembali ke aplikasi…',
    deviceApproved: 'Disetujui. Perangkat Anda terhubung: halaman ini boleh ditutup.',
    deviceDenied: 'Ditolak. Perangkat tidak mendapat akses.',
  },
};

export const PAGE_TEXT: Record<PageLocale, PageText> = { id, en };
