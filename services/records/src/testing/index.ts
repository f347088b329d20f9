// The records test kit: a throwaway database and the real records process, signed principals, tRPC/REST/FHIR
// callers (records.ts), and the clinical world the clinical FHIR tests share (klinis.ts). Not imported by production code.
export * from './records.ts';
export * from './klinis.ts';
