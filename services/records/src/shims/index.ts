// Code that reaches below a library's public API, each file with what it replaces, its measured gain,
// what it waits for upstream and an upgrade test. Nothing outside this folder may do so (test/shape.test.ts).
export { singleCallHandler } from './single-call.ts';
export type { SingleCallOptions } from './single-call.ts';
export { BEGIN, COMMIT, inOneWrite, preparedOn, refusedBeforeCommit, SET_TENANT, sendTenantStatement } from './pipeline.ts';
export { procedureTypes } from './trpc-router.ts';
export { workerWithOwnYoungGeneration } from './worker-young-generation.ts';
