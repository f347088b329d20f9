// Clinics (poli): the procedures, the hospital's access settings, and the schema helpers the visits share.
export { pengaturanRouter, poliRouter } from './procedures.ts';
export { id, strict, userId } from './schema.ts';
export type { Poli, Settings, Staff } from './schema.ts';
export { settingsStore } from './settings.ts';
export { poliStore } from './store.ts';
