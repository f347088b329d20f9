// The headers a proxy hop does not pass on (RFC 9110 §7.6.1), for the gateway's proxy and the bench's
// bare proxy alike, so the two forward the same request.
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  // Node has already answered "100 Continue" to the client; undici refuses to forward it.
  'expect',
]);
