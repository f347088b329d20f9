export { decodePath, procedureOf, routeFor, routes } from './table.ts';
export type { Method, Route, UpstreamName } from './table.ts';
