import { Global, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, DEFAULT_DISPATCHER_POOL_SIZE } from '../config/app-config';
import { DatabaseChangeFeed } from './change-feed';
import { dataSourceOptions } from './data-source-options';
import { Database } from './database';
import { LeasePoller } from './lease-poller';
import { MaintenanceCheck } from './maintenance-check';
import { SqliteCheckpointer } from './sqlite-checkpointer';

/**
 * TypeORM on the configured database; migrations run when the app starts, and on PostgreSQL a
 * warning says when autovacuum does not keep the tables analyzed (MaintenanceCheck). On a SQLite
 * file, checkpoints run in a thread of their own from start to shutdown (SqliteCheckpointer).
 */
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
      useFactory: async (ds: DataSource, config: AppConfig) => {
        const { database } = config;
        // The webhook dispatcher's pool (see UnitOptions in database.ts), where it runs: the same
        // entities, a few connections, named so in pg_stat_activity; migrations are TypeORM's
        // pool's. An instance or a command with the dispatcher off opens none.
        if (database.kind !== 'postgres' || !config.webhooks.dispatcherEnabled)
          return new Database(ds, database.kind);
        const lane = new DataSource({
          ...dataSourceOptions(database, {
            size: database.dispatcherPoolSize ?? DEFAULT_DISPATCHER_POOL_SIZE,
            name: 'billing-api dispatcher',
          }),
          entities: ds.entityMetadatas.map((m) => m.target),
        });
        await lane.initialize();
        return new Database(ds, database.kind, lane);
      },
    },
    {
      provide: DatabaseChangeFeed,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, config: AppConfig) =>
        new DatabaseChangeFeed(ds, config.database.kind),
    },
    {
      provide: SqliteCheckpointer,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, config: AppConfig) =>
        new SqliteCheckpointer(ds, config.database),
    },
    MaintenanceCheck,
    LeasePoller,
  ],
  exports: [Database, DatabaseChangeFeed, SqliteCheckpointer, LeasePoller],
})
export class DatabaseModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    private readonly checkpointer: SqliteCheckpointer,
  ) {}

  onApplicationBootstrap(): void {
    this.checkpointer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.checkpointer.stop();
    await this.db.close();
  }
}
