export * from './classification';
export * from './space-access';
export * from './access-principal';
export * from './governance-events';
export * from './space-grant-decider';
export * from './tool-grant';
export * from './governance-settings';
export * from './policy';
