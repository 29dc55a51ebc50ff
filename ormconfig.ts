/**
 * The TypeORM data source the migration commands use (`typeorm -d ormconfig.ts ...`): the same
 * configuration as the service, read from DATABASE_URL.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

export default new DataSource(dataSourceOptions(loadConfig().database));
