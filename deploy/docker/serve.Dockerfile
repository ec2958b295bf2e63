# syntax=docker/dockerfile:1
# All-in-one `lspmesh serve`: gateway and runner in one process, for one workspace mounted at
# /workspace. serve takes no tokens, so it binds loopback only: run it as a sidecar of an agent's
# sandbox pod (same network namespace: MCP at http://127.0.0.1:7420/mcp), or with host networking
# on a developer machine. From the repository root:
#   docker build -f deploy/docker/serve.Dockerfile -t lspmesh/serve:0.1.0 .
# Serves TypeScript/JavaScript and Python (npm dependencies); add other servers in a derived image
# (see runner.Dockerfile for pinned gopls, clangd and rust-analyzer).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim
# Behind a TLS-intercepting proxy, give npm its CA bundle as a build secret (never stored in a layer):
#   --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt

FROM ${NODE_IMAGE} AS prune
WORKDIR /src
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm install --global --no-fund --no-audit turbo@2.11.11
COPY . .
RUN turbo prune lspmesh --docker

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=prune /src/out/json/ ./
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm ci --ignore-scripts --no-fund --no-audit
COPY --from=prune /src/out/full/ ./
COPY tsconfig.base.json ./
# The bundler the runner and CLI builds run (their process entry points load as bundles).
COPY scripts/bundle.mjs scripts/
# Dependency order (the generated proto code is committed: no buf here).
RUN for pkg in proto packages/service-kit packages/grpc packages/events services/lsp-runner services/gateway apps/cli; do \
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
COPY --from=build /app/services/lsp-runner/dist services/lsp-runner/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/apps/cli/dist apps/cli/dist
COPY --from=build /app/apps/cli/bin apps/cli/bin

FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="lspmesh serve (all-in-one)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/lspmesh/lspmesh" \
      org.opencontainers.image.licenses="Apache-2.0"
# ripgrep: search_text and list_files.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ripgrep \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && groupadd --system --gid 10001 lspmesh \
 && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin lspmesh \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx /opt/yarn* /usr/local/bin/yarn*
WORKDIR /app
COPY --from=deps /app ./
ENV NODE_ENV=production HOME=/tmp TMPDIR=/tmp
USER 10001:10001
EXPOSE 7420
ENTRYPOINT ["node", "--enable-source-maps", "apps/cli/bin/lspmesh.js", "serve"]
CMD ["/workspace"]
