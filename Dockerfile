# faultline's two programs, ingest and analyze, in one small image.
#   docker build -t faultline .
#   docker run --rm faultline analyze demo
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (modernc SQLite, clickhouse-go): a static binary, no cgo.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ingest ./cmd/ingest && \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/analyze ./cmd/analyze

FROM alpine:3.20
# wget (busybox) serves the healthchecks; tzdata for time zones in the UI.
RUN apk add --no-cache ca-certificates tzdata && \
    adduser -D -u 10001 faultline && \
    mkdir -p /var/lib/faultline && chown faultline /var/lib/faultline
COPY --from=build /out/ingest /out/analyze /usr/local/bin/
USER faultline
WORKDIR /var/lib/faultline
ENV FAULTLINE_STORE=/var/lib/faultline/faultline.db
EXPOSE 3100 4317 4318 8080
CMD ["analyze", "demo"]
