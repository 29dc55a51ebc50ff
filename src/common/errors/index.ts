export * from './api-error';
export * from './error-envelope';
