import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata } from '../common/metadata';
import { assertOwnMerchant } from '../common/merchant';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { CreateProductDto } from './dto/create-product.dto';
import { ListProductsQueryDto } from './dto/list-products-query.dto';
import { ProductResponse, toProductResponse } from './dto/product.response';
import { normalizeDescription } from '../common/text';
import { UpdateProductDto } from './dto/update-product.dto';
import { Product } from './entities/product.entity';
import { ProductsRepository } from './products.repository';

/** The rules of products (docs/api.md §5.1). */
@Injectable()
export class ProductsService {
  constructor(
    private readonly db: Database,
    private readonly products: ProductsRepository,
    private readonly events: EventsService,
  ) {}

  async create(caller: Caller, dto: CreateProductDto): Promise<ProductResponse> {
    const { organizationId, livemode } = caller.principal;
    assertOwnMerchant(organizationId, dto.merchantId);
    const now = new Date();
    const product: Product = {
      id: newId(ID_PREFIXES.product),
      organizationId,
      livemode,
      name: dto.name,
      description: normalizeDescription(dto.description),
      metadata: dto.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    // The transaction returns the response: with an Idempotency-Key it is stored in the same commit.
    return this.db.transaction(async (m) => {
      await this.products.insert(m, product);
      const response = toProductResponse(product);
      await this.events.record(m, { ...caller, type: 'product.created', object: response });
      return response;
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<ProductResponse> {
    const product = isIdOf(ID_PREFIXES.product, id)
      ? await this.db.read((m) => this.products.find(m, tenant, id))
      : null;
    if (!product) throw new NotFoundError('product', id);
    return toProductResponse(product);
  }

  async list(tenant: Tenant, query: ListProductsQueryDto): Promise<ListResponse<ProductResponse>> {
    assertOwnMerchant(tenant.organizationId, query.merchantId);
    const [products, total] = await this.db.snapshot((m) => this.products.page(m, tenant, query));
    return toListResponse(products.map(toProductResponse), total, query);
  }

  /** Changes name, description and metadata (merged); If-Match guards against lost updates. */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateProductDto,
    ifMatch?: string,
  ): Promise<ProductResponse> {
    if (!isIdOf(ID_PREFIXES.product, id)) throw new NotFoundError('product', id);
    const tenant = caller.principal;
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.products.find(m, tenant, id, true),
          notFound: () => new NotFoundError('product', id),
          view: toProductResponse,
          ifMatch,
          changes: (product) => ({
            name: dto.name ?? undefined,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            metadata: mergeMetadata(product.metadata, dto.metadata),
          }),
          write: (_, changed) => this.products.update(m, tenant, id, changed),
          written: (before, after) =>
            this.events.recordUpdate(m, { ...caller, type: 'product.updated' }, before, after),
        }),
      caller.commit,
    );
  }
}
