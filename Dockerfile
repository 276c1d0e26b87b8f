# crate-bench as an image: the entry point is the crate-bench command (crate-bench ingest …, crate-bench fleet …).
# Multi-stage: dependencies are installed without the dev tools in a build stage; the image runs as a non-root user.
FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json appClusterIngest.js appClusterAnalytical.js ./
COPY bin ./bin
COPY lib ./lib
COPY queries ./queries
# The image's node user, by number: Kubernetes' runAsNonRoot can check a numeric user.
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/crate-bench.js"]
CMD ["--help"]
