import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Marks a route as reachable without an API key. Only health checks use it. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
