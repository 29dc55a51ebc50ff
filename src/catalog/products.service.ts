import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata } from '../common/metadata';
import { assertOwnMerchant } from '../common/merchant';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import type { CommitHook } from '../database/commit-hook';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
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
  ) {}

  async create(
    organizationId: string,
    dto: CreateProductDto,
    commit?: CommitHook,
  ): Promise<ProductResponse> {
    assertOwnMerchant(organizationId, dto.merchantId);
    const now = new Date();
    const product: Product = {
      id: newId(ID_PREFIXES.product),
      organizationId,
      name: dto.name,
      description: normalizeDescription(dto.description),
      metadata: dto.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    // The transaction returns the response: with an Idempotency-Key it is stored in the same commit.
    return this.db.transaction(async (m) => {
      await this.products.insert(m, product);
      return toProductResponse(product);
    }, commit);
  }

  async get(organizationId: string, id: string): Promise<ProductResponse> {
    const product = isIdOf(ID_PREFIXES.product, id)
      ? await this.db.read((m) => this.products.find(m, organizationId, id))
      : null;
    if (!product) throw new NotFoundError('product', id);
    return toProductResponse(product);
  }

  async list(
    organizationId: string,
    query: ListProductsQueryDto,
  ): Promise<ListResponse<ProductResponse>> {
    assertOwnMerchant(organizationId, query.merchantId);
    const [products, total] = await this.db.read((m) =>
      this.products.page(m, organizationId, query),
    );
    return toListResponse(products.map(toProductResponse), total, query);
  }

  /** Changes name, description and metadata (merged); If-Match guards against lost updates. */
  async update(
    organizationId: string,
    id: string,
    dto: UpdateProductDto,
    ifMatch?: string,
    commit?: CommitHook,
  ): Promise<ProductResponse> {
    if (!isIdOf(ID_PREFIXES.product, id)) throw new NotFoundError('product', id);
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.products.findForUpdate(m, organizationId, id),
          notFound: () => new NotFoundError('product', id),
          view: toProductResponse,
          ifMatch,
          changes: (product) => ({
            name: dto.name ?? undefined,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            metadata: mergeMetadata(product.metadata, dto.metadata),
          }),
          write: (_, changed) => this.products.update(m, organizationId, id, changed),
        }),
      commit,
    );
  }
}
