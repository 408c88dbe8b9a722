# The mcp-harness server image. Multi-stage: build with the project's CMake on
# Debian 12, install the npm MCP servers of the default servers/mcp.json, then a
# slim runtime with the binary, the servers, the sandbox sources and the skills.
#
#   docker build -t mcp-harness:latest \
#     --build-arg DOCKER_GID=$(stat -c %g /var/run/docker.sock) .
#
# The server starts sandboxes on a Docker engine: mount the engine's socket (and
# read docs/DEPLOYMENT.md first: that socket is root on the host) or point
# DOCKER_HOST at a remote engine over TCP+TLS. The sandbox image itself
# (Dockerfile.sandbox) must exist on that engine: see docs/DEPLOYMENT.md.

# Debian 12. Any bookworm-based image with apt works (a local mirror's image, say).
ARG BASE_IMAGE=debian:bookworm-slim
# Node for the stdio MCP servers (the sandbox image uses the same default).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config ca-certificates \
      libboost1.81-dev nlohmann-json3-dev libcurl4-openssl-dev libspdlog-dev libfmt-dev \
      libre2-dev libsqlite3-dev prometheus-cpp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt .clang-format ./
COPY cmake/ cmake/
COPY include/ include/
COPY src/ src/
COPY bench/ bench/
# Only the server binary: the tests need dockerd, npm servers and more.
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHARNESS_BUILD_TESTS=OFF \
 && cmake --build build --target mcp-harness \
 && strip --strip-debug build/src/mcp-harness

FROM ${NODE_IMAGE} AS servers
WORKDIR /servers
COPY servers/package.json servers/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error

FROM ${BASE_IMAGE} AS runtime
# GID of the docker socket's group on the host, so the non-root user may use it.
ARG DOCKER_GID=999
ARG HARNESS_UID=10001
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates curl libcurl4 libssl3 libre2-9 libspdlog1.10 libfmt9 libsqlite3-0 \
      libprometheus-cpp-core1.0 \
 && rm -rf /var/lib/apt/lists/* \
 && (getent group "${DOCKER_GID}" >/dev/null || groupadd --gid "${DOCKER_GID}" docker-host) \
 && useradd --uid "${HARNESS_UID}" --gid "${DOCKER_GID}" --home-dir /opt/mcp-harness --no-create-home \
      --shell /usr/sbin/nologin harness
COPY --from=servers /usr/local/bin/node /usr/local/bin/node
WORKDIR /opt/mcp-harness
COPY --from=build /src/build/src/mcp-harness bin/mcp-harness
COPY --from=servers /servers/node_modules servers/node_modules
COPY servers/mcp.json servers/package.json servers/package-lock.json servers/
COPY Dockerfile.sandbox ./
COPY sandbox/ sandbox/
COPY skills/ skills/
COPY examples/ examples/
# Writable state: the SQLite file, the memory server's file and the
# filesystem server's root (data/files) under data/, task workspaces, user
# skills. Mount a volume on data/ (and the others) to keep them.
RUN mkdir -p data/files workspace skills/users \
 && chown -R harness:"${DOCKER_GID}" data workspace skills/users
VOLUME ["/opt/mcp-harness/data"]

ENV HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    PATH=/opt/mcp-harness/bin:${PATH}
USER harness
EXPOSE 3000
# /health answers 503 while a required component (the Docker engine) is down.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${PORT}/health" >/dev/null || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["mcp-harness"]
