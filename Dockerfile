# syntax=docker/dockerfile:1
# Multi-stage on Node 24 (Active LTS): the service is compiled with tsc in a stage that type-checks
# (a type error fails the build), the Admin Portal's components bundle is built here too, and the
# runtime image carries only production dependencies, the compiled JavaScript and that bundle, and
# runs as a non-root user.
ARG NODE_IMAGE=node:24-bookworm-slim

# all dependencies, from the lockfile: the compiler and the bundler need the dev ones
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json openapi.yaml ./
COPY src ./src
COPY admin ./admin
COPY migrations ./migrations
COPY seeders ./seeders
# type-check and compile to dist/ (the sources' .ts import specifiers become .js); the contract is
# read at run time from beside the compiled tree
RUN npm run build
# the Admin Portal's custom components, bundled once now instead of at every start
RUN npm run bundle:admin -- /app/adminjs-bundle

# production dependencies only
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# ADMIN_JS_SKIP_BUNDLE: AdminJS serves the bundle built above from ADMIN_JS_TMP_DIR (outside the data volume)
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data \
    ADMIN_JS_TMP_DIR=/app/adminjs-bundle \
    ADMIN_JS_SKIP_BUNDLE=true
# ffmpeg for generated audio, fonts for rendered images, tini to forward SIGTERM for graceful shutdown
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core tini curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
COPY --from=build /app/adminjs-bundle ./adminjs-bundle
RUN mkdir -p /app/data && chown -R node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS http://127.0.0.1:${PORT}/ready || exit 1
ENTRYPOINT ["/usr/bin/tini", "--"]
# demo data on request: docker compose exec app node dist/seeders/seed-demo.js
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
