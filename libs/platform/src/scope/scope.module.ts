import { Module } from '@nestjs/common';
import { ProvenanceService } from './provenance.service';
import { ReadScopeService } from './read-scope';

/**
 * What a Space- or Project-scoped caller may see, and where a node came from: one pair of
 * services for every area that reads the graph on a caller's behalf.
 */
@Module({
  providers: [ProvenanceService, ReadScopeService],
  exports: [ProvenanceService, ReadScopeService],
})
export class ScopeModule {}
