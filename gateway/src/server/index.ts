// What the domain folders use of the server: the error answer, the logger and the request context.
// app.ts and observability.ts are not re-exported: they import the domain folders (main.ts imports
// them directly), and re-exporting them here would close an import circle.
export { callerOf, deferRefusedCheck, setCaller, takeRefusedCheck } from './context.ts';
export type { Caller } from './context.ts';
export { answerClientErrors, sendError } from './errors.ts';
export { log } from './log.ts';
export { injectTraceContext } from './tracing.ts';
