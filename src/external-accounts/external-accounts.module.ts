import { Module } from '@nestjs/common';

/** External bank accounts (API.md section 5.5): bank-detail checks, encryption at rest, status. */
@Module({})
export class ExternalAccountsModule {}
