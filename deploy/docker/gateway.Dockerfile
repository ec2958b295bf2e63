# syntax=docker/dockerfile:1
# The MCP gateway. Build from the repository root:
#   docker build -f deploy/docker/gateway.Dockerfile -t lspmesh/gateway:0.1.0 .
# Stages: prune (turbo prune: only the gateway's workspace packages) → build (TypeScript) →
# deps (production dependencies only) → the final image, which holds node, the compiled code and
# its runtime dependencies: no compiler, no npm cache, no sources, no secrets.
ARG NODE_IMAGE=node:22.23.3-bookworm-slim
# Behind a TLS-intercepting proxy, give npm its CA bundle as a build secret (never stored in a layer):
#   --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt

FROM ${NODE_IMAGE} AS prune
WORKDIR /src
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm install --global --no-fund --no-audit turbo@2.11.11
COPY . .
RUN turbo prune @lspmesh/gateway --docker

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=prune /src/out/json/ ./
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm ci --ignore-scripts --no-fund --no-audit
COPY --from=prune /src/out/full/ ./
COPY tsconfig.base.json ./
# Dependency order (the generated proto code is committed: no buf here).
RUN for pkg in proto packages/service-kit packages/grpc packages/events services/gateway; do \
      npm run build --workspace "$pkg" || exit 1; \
    done

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=prune /src/out/json/ ./
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm ci --omit=dev --ignore-scripts --no-fund --no-audit && npm cache clean --force
COPY --from=build /app/proto/dist proto/dist
COPY --from=build /app/packages/service-kit/dist packages/service-kit/dist
COPY --from=build /app/packages/grpc/dist packages/grpc/dist
COPY --from=build /app/packages/events/dist packages/events/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist

FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="lspmesh gateway" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/lspmesh/lspmesh" \
      org.opencontainers.image.licenses="Apache-2.0"
# A fixed non-root uid/gid (runAsNonRoot needs a numeric USER); npm is of no use at run time.
RUN groupadd --system --gid 10001 lspmesh \
 && useradd --system --uid 10001 --gid 10001 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin lspmesh \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx /opt/yarn* /usr/local/bin/yarn*
WORKDIR /app
COPY --from=deps /app ./
ENV NODE_ENV=production \
    LSPMESH_HOST=0.0.0.0 \
    LSPMESH_PORT=7420
USER 10001:10001
EXPOSE 7420
# The root filesystem can be read-only: the gateway writes nothing but its log lines to stdout.
ENTRYPOINT ["node", "--enable-source-maps", "services/gateway/dist/main.js"]
