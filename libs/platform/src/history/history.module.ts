import { Module } from '@nestjs/common';
import { VersionHistoryService } from './version-history.service';

/** Version history of nodes and edges, read from the event log (the history routes and /evolve). */
@Module({
  providers: [VersionHistoryService],
  exports: [VersionHistoryService],
})
export class HistoryModule {}
