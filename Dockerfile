# Multi-stage image (Debian bookworm). The build stage installs packages with the project's own
# scripts/install-deps, so the image and the developer machines cannot drift apart.
FROM debian:bookworm AS build
WORKDIR /src
COPY . /src
RUN scripts/install-deps run && cmake --preset release -DBUILD_TESTING=OFF -DORCH_BUILD_BENCH=OFF \
    && cmake --build --preset release -j2 --target orchestrator site-sim tosca-check \
    && cmake --install build --prefix /usr/local

FROM debian:bookworm-slim AS runtime
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libboost-system1.81.0 libyaml-cpp0.7 libpqxx-6.4 libssl3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 orchestrator
COPY --from=build /src/build/bin/orchestrator /usr/local/bin/orchestrator
# tosca-check validates templates in CI pipelines: `docker run --entrypoint tosca-check IMAGE ...`.
COPY --from=build /src/build/bin/tosca-check /usr/local/bin/tosca-check
# The shipped TOSCA types profile, as `cmake --install` lays it out: what tosca.mirrors maps the
# profile's URL onto (ORCHESTRATOR_TOSCA_MIRRORS), so templates importing it are checked offline.
COPY --from=build /usr/local/share/orchestrator /usr/local/share/orchestrator
USER orchestrator
EXPOSE 8080
ENV ORCHESTRATOR_LISTEN=0.0.0.0:8080
ENTRYPOINT ["/usr/local/bin/orchestrator"]

# The site simulator (Marathon, Chronos, Kubernetes APIs) for docker-compose.yml.
FROM runtime AS site-sim
COPY --from=build /src/build/bin/site-sim /usr/local/bin/site-sim
ENTRYPOINT ["/usr/local/bin/site-sim"]
