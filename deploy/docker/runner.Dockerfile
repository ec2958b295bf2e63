# syntax=docker/dockerfile:1
# Runner images, one per language family: pick one with --target. From the repository root:
#   docker build -f deploy/docker/runner.Dockerfile --target runner-typescript -t lspmesh/runner-typescript:0.1.0 .
# Targets: runner-typescript (typescript-language-server + TypeScript, pinned by the lockfile),
# runner-python (pyright), runner-go (gopls + Go), runner-cpp (clangd), runner-rust (rust-analyzer
# + cargo). Each image serves only its family (/etc/lspmesh/languages.json); the TypeScript and
# Python servers are npm dependencies of the runner; Go, gopls and clangd are Debian packages of the
# node image's own release (bookworm), so every target but runner-rust builds from NODE_IMAGE alone;
# runner-rust brings rust-analyzer and cargo from RUST_IMAGE. No compiler toolchain of ours, no npm,
# no sources and no secrets in the final stages.
ARG NODE_IMAGE=node:22.23.3-bookworm-slim
# Behind a TLS-intercepting proxy, give npm its CA bundle as a build secret (never stored in a layer):
#   --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt
# Only runner-rust needs a second image (bring rust-analyzer: see that target).
ARG RUST_IMAGE=rust:1.91.1-slim-bookworm

FROM ${NODE_IMAGE} AS prune
WORKDIR /src
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm install --global --no-fund --no-audit turbo@2.11.11
COPY . .
RUN turbo prune @lspmesh/lsp-runner --docker

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=prune /src/out/json/ ./
RUN --mount=type=secret,id=ca-certificates,required=false NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm ci --ignore-scripts --no-fund --no-audit
COPY --from=prune /src/out/full/ ./
COPY tsconfig.base.json ./
# The bundler the runner and CLI builds run (their process entry points load as bundles).
COPY scripts/bundle.mjs scripts/
# Dependency order (the generated proto code is committed: no buf here).
RUN for pkg in proto packages/service-kit packages/grpc packages/events services/lsp-runner; do \
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

# What every runner image shares: a fixed non-root uid/gid, no npm, the runner and its entry point.
FROM ${NODE_IMAGE} AS runner-base
ARG VERSION=0.1.0
LABEL org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/lspmesh/lspmesh" \
      org.opencontainers.image.licenses="Apache-2.0"
# ripgrep: search_text and list_files. bubblewrap: each language server's sandbox (LSPMESH_SANDBOX=auto uses it where the pod may
# create user namespaces, and says at start when it cannot: docs/deploy.md, "Security model").
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ripgrep \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && groupadd --system --gid 10001 lspmesh \
 && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin lspmesh \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx /opt/yarn* /usr/local/bin/yarn*
WORKDIR /app
COPY --from=deps /app ./
COPY deploy/docker/runner-entrypoint.sh /usr/local/bin/lspmesh-runner
# HOME and TMPDIR on /tmp: the one writable place (an emptyDir) under a read-only root filesystem.
# LSPMESH_WORKERS=auto: one Landlock-confined worker per tenant (a Pod Security "restricted" pod
# allows it; bubblewrap cannot mount its /proc there), proven in this image under podman's
# restricted settings by npm run test:deploy (test/deploy/podman/crossTenant.test.ts).
ENV NODE_ENV=production \
    HOME=/tmp \
    TMPDIR=/tmp \
    LSPMESH_WORKERS=auto \
    LSPMESH_LISTEN=0.0.0.0:7421 \
    LSPMESH_WORKSPACES_ROOT=/workspaces \
    LSPMESH_LANGUAGES_FILE=/etc/lspmesh/languages.json
EXPOSE 7421 9464
ENTRYPOINT ["/usr/local/bin/lspmesh-runner"]

FROM runner-base AS runner-typescript
LABEL org.opencontainers.image.title="lspmesh runner (TypeScript/JavaScript)"
COPY deploy/docker/languages/typescript.json /etc/lspmesh/languages.json
USER 10001:10001

FROM runner-base AS runner-python
LABEL org.opencontainers.image.title="lspmesh runner (Python)"
# pyright runs the interpreter (isolated, -I) only to find the standard library's search paths.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-minimal \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY deploy/docker/languages/python.json /etc/lspmesh/languages.json
USER 10001:10001

FROM runner-base AS runner-go
LABEL org.opencontainers.image.title="lspmesh runner (Go)"
# Go and gopls from Debian (bookworm: golang-go 1.19, gopls 0.5), as clangd below: the same base as
# every runner, no other image. No module downloads (runners have no egress): gopls answers from
# the workspace and the standard library. GOTOOLCHAIN=local: a newer Go would download another Go.
RUN apt-get update \
 && apt-get install -y --no-install-recommends golang-go gopls \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# Language servers get a safelist of the runner's environment (PATH, HOME=/tmp, TMPDIR…), so gopls
# gets GOPROXY=off and GOFLAGS=-mod=readonly from languages/go.json (GOTOOLCHAIN=local: the runner);
# these are for go run by hand in the container.
ENV GOPROXY=off \
    GOTOOLCHAIN=local \
    GOCACHE=/tmp/go-build \
    GOPATH=/tmp/go
COPY deploy/docker/languages/go.json /etc/lspmesh/languages.json
USER 10001:10001

FROM runner-base AS runner-cpp
LABEL org.opencontainers.image.title="lspmesh runner (C/C++)"
# clangd (Debian's default LLVM, bookworm: 14) and the C/C++ standard headers it resolves includes
# against; no compiler is needed (clangd never runs one: no --query-driver).
RUN apt-get update \
 && apt-get install -y --no-install-recommends clangd libc6-dev libstdc++-12-dev \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY deploy/docker/languages/cpp.json /etc/lspmesh/languages.json
USER 10001:10001

# Not built by npm run test:deploy (no registry there): bring rust-analyzer. RUST_IMAGE supplies
# rust-analyzer, rust-src and cargo (Debian bookworm packages no rust-analyzer).
FROM ${RUST_IMAGE} AS rust
RUN rustup component add rust-analyzer rust-src \
 && rm -rf /usr/local/rustup/toolchains/*/share/doc

FROM runner-base AS runner-rust
LABEL org.opencontainers.image.title="lspmesh runner (Rust)"
COPY --from=rust /usr/local/rustup /usr/local/rustup
COPY --from=rust /usr/local/cargo /usr/local/cargo
# cargo metadata offline (runners have no egress); CARGO_HOME's caches go to /tmp.
ENV RUSTUP_HOME=/usr/local/rustup \
    CARGO_HOME=/tmp/cargo \
    CARGO_NET_OFFLINE=true \
    PATH=/usr/local/cargo/bin:$PATH
COPY deploy/docker/languages/rust.json /etc/lspmesh/languages.json
USER 10001:10001
