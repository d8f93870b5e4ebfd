import { defineConfig } from 'vitest/config';

/**
 * The dashboard's component tests (apps/dashboard/test/*.test.ts): each renders one area's
 * page into happy-dom with a fake API (test/support/fake-api.ts) and checks what a person
 * sees and which routes the page's actions call. `npm test` runs them after jest.
 */
export default defineConfig({
  test: {
    include: ['apps/dashboard/test/**/*.test.ts'],
    environment: 'happy-dom',
    restoreMocks: true,
    unstubGlobals: true,
  },
});
