import { Module } from '@nestjs/common';

/** Plans and their prices (API.md sections 5.3 and 5.4): Plan one-to-many Price. */
@Module({})
export class PlansModule {}
