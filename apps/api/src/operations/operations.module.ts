import { Module } from '@nestjs/common';
import { CreateOwnerService } from '@strata/accounts/create-owner.service';
import { ProjectionHandover } from './projections/projection-handover.service';

/**
 * Operator support: the service side of projection rebuilds (hand-over and version-bump
 * rebuilds beside the live projections) and the services the `strata` CLI runs through an
 * application context. No routes.
 */
@Module({
  providers: [ProjectionHandover, CreateOwnerService],
  exports: [CreateOwnerService],
})
export class OperationsModule {}
