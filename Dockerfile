# Strata service image (the API; the projection worker runs the same image with another command).
FROM node:20-slim AS build
WORKDIR /app
# compilers for native modules without a prebuilt binary for this platform
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
EXPOSE 3000
# what `npm start` runs once built (its prestart step only checks that the build exists)
CMD ["node", "--max-semi-space-size=64", "dist/apps/api/src/main.js"]
