import { Module } from '@nestjs/common';
import { ProjectionHandover } from './projections/projection-handover.service';

/**
 * Operator support: the service side of projection rebuilds (hand-over and version-bump
 * rebuilds beside the live projections). No routes. Owner creation, which the `strata` CLI
 * runs, is AccountsCoreModule's.
 */
@Module({
  providers: [ProjectionHandover],
})
export class OperationsModule {}
