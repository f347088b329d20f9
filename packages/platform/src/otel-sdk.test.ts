import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AlwaysOffSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import { leanSdkCovers } from './otel-sdk.ts';
import type { SdkSetup } from './otel-sdk.ts';

const drop = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
const notExporting: SdkSetup = {
  instrumentations: [],
  metricReaders: [],
  spanProcessors: [drop],
  sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
};

describe('which SDK start a service gets', () => {
  it('the lean one for the defaults, the W3C propagators and a log level', () => {
    assert.equal(leanSdkCovers(notExporting, { OTEL_LOGS_EXPORTER: 'none' }), true);
    assert.equal(leanSdkCovers(notExporting, { OTEL_PROPAGATORS: 'tracecontext, baggage', OTEL_LOG_LEVEL: 'debug' }), true);
  });

  it('NodeSDK for anything it would interpret differently', () => {
    assert.equal(leanSdkCovers({ ...notExporting, spanProcessors: undefined }, {}), false, 'spans exported');
    assert.equal(leanSdkCovers({ ...notExporting, sampler: undefined }, {}), false, 'OTEL_TRACES_SAMPLER');
    for (const env of [
      { OTEL_LOGS_EXPORTER: 'otlp' },
      { OTEL_PROPAGATORS: 'tracecontext,b3' },
      { OTEL_NODE_RESOURCE_DETECTORS: 'env' },
      { OTEL_SDK_DISABLED: 'true' },
      { OTEL_NODE_EXPERIMENTAL_SDK_METRICS: 'true' },
    ])
      assert.equal(leanSdkCovers(notExporting, env), false, JSON.stringify(env));
  });
});
