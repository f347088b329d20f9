// Code that reaches below Better Auth's public API, each file with what it replaces, its measured gain,
// what it waits for upstream and an upgrade test. Nothing outside this folder may do so (test/shape.test.ts).
export { reserveDpopProofsInRedis } from './dpop-proofs.ts';
export { routerOnce } from './router-once.ts';
