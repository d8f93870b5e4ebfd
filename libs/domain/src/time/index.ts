export * from './clock';
export * from './time-ordered-uuid';
