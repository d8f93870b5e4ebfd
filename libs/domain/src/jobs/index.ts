export * from './job-record';
