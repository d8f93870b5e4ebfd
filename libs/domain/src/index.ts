export * from './errors';
export * from './records';
export * from './events';
export * from './catalogue';
export * from './props';
