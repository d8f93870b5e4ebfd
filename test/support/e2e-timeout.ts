// e2e tests start services and CLI processes: 5 s (jest's default) is too tight on a loaded
// 2-core CI box. testTimeout is a global option, so a project sets it here instead.
jest.setTimeout(30_000);
