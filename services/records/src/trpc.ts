// tRPC setup: the context every procedure sees and the error formatter that keeps the seed's envelope
// (message, code, data.code, data.httpStatus, data.path) and never leaks a stack or an internal message.
import { initTRPC } from '@trpc/server';
import type { Principal } from '@simrs/platform/principal';

export interface Context {
  /** Verified from the gateway's signed header; undefined for anonymous calls. */
  principal: Principal | undefined;
  requestId: string;
}

const t = initTRPC.context<Context>().create({
  isDev: false,
  errorFormatter({ shape, error }) {
    const internal = shape.data.httpStatus >= 500;
    return {
      message: internal ? 'internal error' : shape.message,
      code: shape.code,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path ?? '',
        ...(error.cause && 'fieldErrors' in error.cause ? { fieldErrors: error.cause.fieldErrors } : {}),
      },
    };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;
export const middleware = t.middleware;
