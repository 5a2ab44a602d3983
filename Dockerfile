# tiergate: a static `bot` binary on a distroless base, running as a non-root user.
# Build: docker build --build-arg VERSION=$(git describe --tags --always) -t tiergate .
# No HEALTHCHECK: Kubernetes probes /healthz and /readyz (deploy/base/deployment.yaml).
# Tests run this file's `go build` line and check its rules (docs/deploy.md, "Dockerfile checks").

# The build stage runs on the builder's platform and cross-compiles for the target one.
FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w -X main.version=$VERSION" -o /out/bot ./cmd/bot
# The default data directory, owned by the non-root user (a volume in Kubernetes).
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.source="https://github.com/tiergate/tiergate" \
      org.opencontainers.image.description="tiergate reviews Flux CD pull requests"
COPY --from=build /out/bot /usr/local/bin/bot
COPY --from=build --chown=65532:65532 /out/data /var/lib/tiergate
ENV TIERGATE_DATA_DIR=/var/lib/tiergate
# nonroot, numeric so that Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bot"]
CMD ["serve"]
