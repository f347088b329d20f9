export { forward } from './forward.ts';
export type { ForwardOptions } from './forward.ts';
export { upstream } from './proxy.ts';
export type { Upstream } from './proxy.ts';
