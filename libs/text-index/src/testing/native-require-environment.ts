import NodeEnvironment from 'jest-environment-node';

/**
 * Jest's module sandbox cannot `require()` an ES-module-only package (such as `meilisearch`)
 * on Node 20, but Node itself can (≥ 20.19). Server suites that need one opt in with
 * `@jest-environment ./libs/text-index/src/testing/native-require-environment.ts` and load it
 * through `globalThis.__strataNativeRequire`, outside the sandbox.
 */
export default class NativeRequireEnvironment extends NodeEnvironment {
  override async setup(): Promise<void> {
    await super.setup();
    this.global.__strataNativeRequire = (id: string) => require(id);
  }
}
