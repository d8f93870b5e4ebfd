import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';

// The tests act as a person does (a click, then waiting for what shows), so React renders as
// it does in the browser instead of inside act(); each test's page is unmounted after it.
beforeAll(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
});
afterEach(() => {
  cleanup();
});
