import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Injectable,
  Module,
  OnModuleInit,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ulid } from 'ulid';
import { CurrentOrganization } from '../../src/auth/current-organization.decorator';
import { NotFoundError } from '../../src/common/errors';
import { ApiCommonResponses } from '../../src/platform/api-docs';
import { IfMatch, assertIfMatch } from '../../src/platform/etag';
import { Metadata, MetadataPatch, mergeMetadata, sortedMetadata } from '../../src/common/metadata';
import { ListQueryDto, toListResponse } from '../../src/common/dto/list-query.dto';
import { IsMetadata, IsName, IsOptionalNotNull } from '../../src/common/validation/decorators';
import { JSON_COLUMN, TIMESTAMP } from '../../src/database/column-types';
import { Database } from '../../src/database/database';
import type { CommitHook } from '../../src/database/commit-hook';
import { IdempotencyCommit, Idempotent } from '../../src/platform/idempotency/idempotent.decorator';

/**
 * A test-only resource with the shape of the product's (create 201 with Location, get, list,
 * PATCH with metadata merge, If-Match and a row lock, DELETE), on a real table, so the platform
 * guarantees of docs/api.md §6 can be tested end to end before the product modules exist.
 */
@Entity({ name: 'test_widgets' })
export class Widget {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: JSON_COLUMN })
  metadata: Metadata;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP })
  updatedAt: Date;
}

export interface WidgetView {
  id: string;
  object: 'widget';
  name: string;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
}

/** For the OpenAPI document (the test module has no Swagger plugin pass of its own). */
class WidgetResponse {
  @ApiProperty()
  id: string;
  @ApiProperty({ example: 'widget' })
  object: string;
  @ApiProperty()
  name: string;
}

class CreateWidgetDto {
  @IsName()
  name: string;

  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;

  /** Test knob: the handler waits this long before it writes. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(5000)
  delayMs?: number;

  /** Test knob: the first request carrying this token fails with a 500, later ones succeed. */
  @IsOptional()
  @IsString()
  failOnce?: string;
}

class UpdateWidgetDto {
  @IsOptionalNotNull()
  @IsName()
  name?: string;

  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  metadata?: MetadataPatch | null;

  /** Test knob: waits this long between reading and writing, inside the transaction. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  delayMs?: number;
}

const WIDGET_ID = /^wdg_[0-9A-Za-z]{16,40}$/;
const failedTokens = new Set<string>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function toView(w: Widget): WidgetView {
  return {
    id: w.id,
    object: 'widget',
    name: w.name,
    metadata: sortedMetadata(w.metadata),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

@Injectable()
export class WidgetsService implements OnModuleInit {
  constructor(private readonly db: Database) {}

  /** The table is made here, not by a migration: it exists only in tests. */
  async onModuleInit(): Promise<void> {
    const [time, json] = this.db.isPostgres ? ['timestamptz(3)', 'jsonb'] : ['datetime', 'text'];
    await this.db.transaction((m) =>
      m.query(`
        CREATE TABLE IF NOT EXISTS "test_widgets" (
          "id" varchar(48) PRIMARY KEY NOT NULL,
          "organization_id" varchar(48) NOT NULL,
          "name" varchar(200) NOT NULL,
          "metadata" ${json} NOT NULL,
          "created_at" ${time} NOT NULL,
          "updated_at" ${time} NOT NULL
        )`),
    );
  }

  async create(
    organizationId: string,
    dto: CreateWidgetDto,
    commit?: CommitHook,
  ): Promise<WidgetView> {
    if (dto.failOnce !== undefined && !failedTokens.has(dto.failOnce)) {
      failedTokens.add(dto.failOnce);
      throw new Error('planned failure');
    }
    if (dto.delayMs) await sleep(dto.delayMs);
    const now = new Date();
    const widget = Object.assign(new Widget(), {
      id: `wdg_${ulid()}`,
      organizationId,
      name: dto.name,
      metadata: dto.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    });
    await this.db.transaction((m) => m.insert(Widget, widget), commit);
    return toView(widget);
  }

  async get(organizationId: string, id: string): Promise<WidgetView> {
    return toView(await this.db.read((m) => this.find(m, organizationId, id)));
  }

  async list(organizationId: string, query: ListQueryDto) {
    const [rows, total] = await this.db.read((m) =>
      m.findAndCount(Widget, {
        where: { organizationId },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      }),
    );
    return toListResponse(rows.map(toView), total, query);
  }

  async update(
    organizationId: string,
    id: string,
    dto: UpdateWidgetDto,
    ifMatch?: string,
    commit?: CommitHook,
  ): Promise<WidgetView> {
    return this.db.transaction(async (m) => {
      const widget = await this.find(m, organizationId, id, true);
      assertIfMatch(ifMatch, toView(widget));
      if (dto.delayMs) await sleep(dto.delayMs);
      if (dto.name !== undefined) widget.name = dto.name;
      widget.metadata = mergeMetadata(widget.metadata, dto.metadata);
      widget.updatedAt = new Date();
      await m.update(
        Widget,
        { id },
        { name: widget.name, metadata: widget.metadata, updatedAt: widget.updatedAt },
      );
      return toView(widget);
    }, commit);
  }

  async remove(organizationId: string, id: string, ifMatch?: string, commit?: CommitHook) {
    return this.db.transaction(async (m) => {
      const widget = await this.find(m, organizationId, id, true);
      assertIfMatch(ifMatch, toView(widget));
      await m.delete(Widget, { id });
      return { id, object: 'widget' as const, deleted: true };
    }, commit);
  }

  /** Empties the metadata and answers 204 (a write without a response body). */
  async clearMetadata(organizationId: string, id: string, commit?: CommitHook): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.find(m, organizationId, id, true);
      await m.update(Widget, { id }, { metadata: {}, updatedAt: new Date() });
    }, commit);
  }

  private async find(
    m: import('typeorm').EntityManager,
    organizationId: string,
    id: string,
    lock = false,
  ): Promise<Widget> {
    const widget = WIDGET_ID.test(id)
      ? await m.findOne(Widget, {
          where: { id, organizationId },
          lock: lock ? this.db.rowLock : undefined,
        })
      : null;
    if (!widget) throw new NotFoundError('widget', id);
    return widget;
  }
}

@ApiCommonResponses()
@Controller('v0/widgets')
class WidgetsController {
  constructor(private readonly widgets: WidgetsService) {}

  @Post()
  @Idempotent()
  @ApiCreatedResponse({ type: WidgetResponse })
  async create(
    @CurrentOrganization() org: string,
    @Body() dto: CreateWidgetDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    const widget = await this.widgets.create(org, dto, commit);
    void reply.header('Location', `/v0/widgets/${widget.id}`);
    return widget;
  }

  @Get()
  list(@CurrentOrganization() org: string, @Query() query: ListQueryDto) {
    return this.widgets.list(org, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: WidgetResponse })
  get(@CurrentOrganization() org: string, @Param('id') id: string) {
    return this.widgets.get(org, id);
  }

  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: WidgetResponse })
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() dto: UpdateWidgetDto,
    @IfMatch() ifMatch?: string,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    return this.widgets.update(org, id, dto, ifMatch, commit);
  }

  @Delete(':id')
  @Idempotent()
  remove(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @IfMatch() ifMatch?: string,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    return this.widgets.remove(org, id, ifMatch, commit);
  }

  @Delete(':id/metadata')
  @Idempotent()
  @HttpCode(204)
  clearMetadata(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    return this.widgets.clearMetadata(org, id, commit);
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([Widget])],
  controllers: [WidgetsController],
  providers: [WidgetsService],
})
export class WidgetsModule {}
