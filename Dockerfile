# syntax=docker/dockerfile:1
# acceld node agent image:
#   docker build -t acceld:0.1.0 --build-arg ACCELD_REVISION="$(git rev-parse --short=12 HEAD)" .
#
# Stage 1 builds the jar with the Maven Wrapper (tests run in CI, not here) and turns it into
# /opt/acceld with deploy/image/build-runtime.sh: a jlinked runtime of the modules the agent uses,
# the launcher, and an AppCDS archive recorded from a simulated run. RuntimeImageIT runs the same
# script and starts its output against a kubelet double, so this stage is tested without a daemon.
# Stage 2 is Debian slim: glibc (Netty's epoll transport and JNA are glibc builds, so no
# Alpine/musl) and a /bin/sh for the launcher; nothing else.

ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
# The JDK the project builds and tests with (Debian's OpenJDK 17), and gcc for the NVML test double
# that simulate mode and the AppCDS training run load. Unpinned on purpose: Debian's security
# updates for a stable release are what we want.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY .mvn/ .mvn/
COPY mvnw pom.xml ./
COPY proto/ proto/
COPY native-probes/ native-probes/
COPY src/main/ src/main/
COPY src/build/ src/build/
COPY deploy/bin/ deploy/bin/
COPY deploy/image/ deploy/image/
# The context has no .git, so the git revision comes in as an argument (acceld --version and
# acceld_build_info show it): docker build --build-arg ACCELD_REVISION="$(git rev-parse HEAD)" .
# Without it the image says "unknown", never a wrong commit.
ARG ACCELD_REVISION=
RUN ./mvnw -B -q package -DskipTests -Dacceld.revision="${ACCELD_REVISION}" \
 && deploy/image/build-runtime.sh target/acceld.jar /opt/acceld \
 && mkdir -p /opt/acceld/share \
 && cp -r target/native-probes /opt/acceld/share/native-probes

FROM ${DEBIAN_IMAGE}
LABEL org.opencontainers.image.title="acceld" \
      org.opencontainers.image.description="Node agent that makes accelerators schedulable by Kubernetes and observable by Prometheus"
# The tree is copied whole, with its mtimes: the AppCDS archive names the jar by path, size and
# modification time, and the launcher passes -Xshare:auto, so a mismatch would only cost start-up time.
COPY --from=build /opt/acceld /opt/acceld
# The NVML test double, so `acceld run --simulate` works in the image too (ACCELD_NATIVE_PROBES).
ENV PATH=/opt/acceld/bin:$PATH \
    ACCELD_NATIVE_PROBES=/opt/acceld/share/native-probes
# A non-root user by default: `acceld devices`, `--simulate` and a plugin-watcher setup where the
# operator gives the agent its own directories need nothing more. The DaemonSet overrides this with
# runAsUser: 0 (and no capabilities), because the kubelet's device-plugin directory and
# kubelet.sock are root-owned 0750/0755 on real nodes: see deploy/kubernetes/daemonset.yaml.
# Bash completion for `kubectl exec -it ... -- bash` (bash-completion loads it; by hand: `source
# /usr/share/bash-completion/completions/acceld`), made by build-runtime.sh.
RUN groupadd --system --gid 65532 acceld \
 && useradd --system --uid 65532 --gid acceld --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin acceld \
 && mkdir -p /usr/share/bash-completion/completions \
 && ln -s /opt/acceld/share/bash-completion/completions/acceld \
      /usr/share/bash-completion/completions/acceld
USER 65532:65532
# /metrics, /healthz, /readyz, /devices
EXPOSE 9445
ENTRYPOINT ["/opt/acceld/bin/acceld"]
CMD ["run"]
