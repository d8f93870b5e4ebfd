import { Global, Module } from '@nestjs/common';
import { FastRoutes } from './fast-routes';
import { Readiness } from './readiness';
import { RouteTable } from './route-table';

/**
 * The HTTP server's shared pieces: the route table, readiness and the fast routes. Global, as
 * the areas register fast routes and the health route reads readiness. Factories, not values:
 * every application instance (e2e tests start several) has its own.
 */
@Global()
@Module({
  providers: [
    { provide: RouteTable, useFactory: () => new RouteTable() },
    { provide: Readiness, useFactory: () => new Readiness() },
    { provide: FastRoutes, useFactory: () => new FastRoutes() },
  ],
  exports: [RouteTable, Readiness, FastRoutes],
})
export class HttpPlatformModule {}
