export * from './decay';
export * from './purge-cutoff';
export * from './snapshot-format';
export * from './snapshot-validation';
