# syntax=docker/dockerfile:1
# Multi-stage: dependencies are installed once with the lockfile, the runtime image carries only
# production dependencies and runs as a non-root user.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# tsx (a production dependency) runs the TypeScript sources directly: no build output to drift from them
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data \
    ADMIN_JS_TMP_DIR=/app/data/adminjs-tmp
# ffmpeg for generated audio, fonts for rendered images, tini to forward SIGTERM for graceful shutdown
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core tini curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json openapi.yaml ./
COPY src ./src
COPY admin ./admin
COPY migrations ./migrations
COPY seeders ./seeders
RUN mkdir -p /app/data && chown -R node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS http://127.0.0.1:${PORT}/ready || exit 1
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "src/main.ts"]
