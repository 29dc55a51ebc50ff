export * from './api-error';
export * from './error-envelope';
export * from './database-errors';
