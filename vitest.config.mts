import { defineConfig } from 'vitest/config';

/**
 * The dashboard's component tests (apps/dashboard/test/*.test.ts[x]): each renders one area's
 * page into happy-dom with React Testing Library and a fake API (test/support/fake-api.ts),
 * and checks what a person sees and which routes the page's actions call. `npm test` runs
 * them after jest.
 */
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    include: ['apps/dashboard/test/**/*.test.{ts,tsx}'],
    setupFiles: ['apps/dashboard/test/support/setup.ts'],
    environment: 'happy-dom',
    // the page's origin, as the service serves it (same-origin URLs, the activity socket's address)
    environmentOptions: { happyDOM: { url: 'http://127.0.0.1:8080/app/' } },
    restoreMocks: true,
    unstubGlobals: true,
  },
});
