export * from './money';
export * from './price-charge';
export * from './invoice-amounts';
