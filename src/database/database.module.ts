import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DatabaseChangeFeed } from './change-feed';
import { dataSourceOptions } from './data-source-options';
import { Database } from './database';

/** TypeORM on the configured database; migrations run when the app starts. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.database),
        entities: [],
        autoLoadEntities: true,
        migrationsRun: true,
        retryAttempts: 0,
      }),
    }),
  ],
  providers: [
    {
      provide: Database,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, config: AppConfig) => new Database(ds, config.database.kind),
    },
    {
      provide: DatabaseChangeFeed,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, config: AppConfig) =>
        new DatabaseChangeFeed(ds, config.database.kind),
    },
  ],
  exports: [Database, DatabaseChangeFeed],
})
export class DatabaseModule {}
