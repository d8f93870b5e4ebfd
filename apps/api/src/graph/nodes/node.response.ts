import { ApiProperty } from '@nestjs/swagger';
import type { NodeRecord } from '@strata/domain/records';
import { Int, ListOfShared, Strings } from '../../platform/http/responses/response-fields';

/** `POST /nodes/batch` (REFERENCE §8.2) */
export class NodeBatchResponse {
  @ListOfShared('NodeRecord', 'in input order, tombstoned nodes included')
  nodes!: NodeRecord[];
  @Strings('uids not found (or outside the caller’s grants)')
  missing!: string[];
}

/** `POST /nodes/delete` (REFERENCE §8.2) */
export class DeleteNodesResponse {
  @Int('nodes the selectors matched')
  matched!: number;
  @Int()
  nodes_tombstoned!: number;
  @Int()
  edges_tombstoned!: number;
  @Int('with hard_purge')
  nodes_purged!: number;
  @Int('with hard_purge')
  edges_purged!: number;
  @Strings('uids of `uids` not found')
  missing!: string[];
  // not in REFERENCE's table: the echo tells a dry run's counts from a real one's
  @ApiProperty({ type: Boolean, enum: [true], required: false, description: 'present (true) on a dry run: the counts say what would happen, nothing was written' })
  dry_run?: true;
}
