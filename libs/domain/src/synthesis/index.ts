export * from './signal-request';
export * from './project-corpus';
export * from './signals';
export * from './claim-clusters';
export * from './synthesis-article';
