export * from './extractor.port';
export * from './quote-anchor';
export * from './offline/offline-extractor';
export * from './model/model-extractor';
