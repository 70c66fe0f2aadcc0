# The npu-doctor image that deploy/k8s/watch-daemonset.yaml runs on every
# node: the release binary (static but for glibc) on Debian slim, with procps
# for the watch loop's pgrep. Build: docker build -t npu-doctor:0.1.0 .
# Stage 1 builds with the packages scripts/install-deps.sh names.
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake make gcc g++ pkg-config git ca-certificates \
      libvectorscan-dev libjansson-dev libinih-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DND_PORTABLE=ON -DCMAKE_INSTALL_PREFIX=/usr \
 && cmake --build /build -j "$(nproc)" --target npu-doctor \
 && DESTDIR=/stage cmake --install /build

# Stage 2: the binary, its man page, completions and docs; nothing to compile.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends procps \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /stage/ /
# Compiled rule databases are cached here; a read-only root still works.
ENV NPU_DOCTOR_CACHE_DIR=/var/cache/npu-doctor
RUN mkdir -p /var/cache/npu-doctor && npu-doctor --version
ENTRYPOINT ["npu-doctor"]
CMD ["check"]
