import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata, sameMetadata } from '../common/metadata';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database.service';
import { CatalogService } from './catalog.service';
import { CreateProductDto } from './dto/create-product.dto';
import { ListProductsQueryDto } from './dto/list-products-query.dto';
import { ProductResponse, toProductResponse } from './dto/product.response';
import { UpdateProductDto } from './dto/update-product.dto';
import { Product } from './entities/product.entity';
import { normalizeDescription } from '../common/text';
import { assertOwnMerchant } from '../common/merchant';

@Injectable()
export class ProductsService {
  constructor(
    private readonly db: Database,
    private readonly catalog: CatalogService,
  ) {}

  async create(organizationId: string, dto: CreateProductDto): Promise<ProductResponse> {
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
      await m.insert(Product, product);
      return toProductResponse(product);
    });
  }

  async get(organizationId: string, id: string): Promise<ProductResponse> {
    return toProductResponse(await this.catalog.getProductOrFail(organizationId, id));
  }

  async list(
    organizationId: string,
    query: ListProductsQueryDto,
  ): Promise<ListResponse<ProductResponse>> {
    assertOwnMerchant(organizationId, query.merchantId);
    const [products, total] = await this.db.read((m) =>
      m.findAndCount(Product, {
        where: { organizationId },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      }),
    );
    return toListResponse(products.map(toProductResponse), total, query);
  }

  /** Changes name, description and metadata (merged); If-Match guards against lost updates. */
  async update(
    organizationId: string,
    id: string,
    dto: UpdateProductDto,
    ifMatch?: string,
  ): Promise<ProductResponse> {
    if (!isIdOf(ID_PREFIXES.product, id)) throw new NotFoundError('product', id);
    return this.db.transaction(async (m) => {
      const product = await m.findOne(Product, {
        where: { id, organizationId },
        lock: this.db.rowLock,
      });
      if (!product) throw new NotFoundError('product', id);
      assertIfMatch(ifMatch, toProductResponse(product));

      const changes = {
        name: dto.name ?? product.name,
        description:
          dto.description === undefined
            ? product.description
            : normalizeDescription(dto.description),
        metadata: mergeMetadata(product.metadata, dto.metadata),
      };
      const unchanged =
        changes.name === product.name &&
        changes.description === product.description &&
        sameMetadata(changes.metadata, product.metadata);
      // A PATCH that changes nothing leaves updatedAt, and so the ETag, as they were.
      if (unchanged) return toProductResponse(product);

      Object.assign(product, changes, { updatedAt: new Date() });
      await m.update(
        Product,
        { id, organizationId },
        {
          name: product.name,
          description: product.description,
          metadata: product.metadata,
          updatedAt: product.updatedAt,
        },
      );
      return toProductResponse(product);
    });
  }
}
