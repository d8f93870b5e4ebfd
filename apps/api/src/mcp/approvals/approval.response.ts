import { ListOf, OffsetPage } from '../../platform/http/responses/response-fields';
import { ToolApprovalRecord } from '../../platform/http/responses/tool-approval-record';

export class ToolApprovalPage extends OffsetPage {
  @ListOf(() => ToolApprovalRecord, 'newest first')
  items!: ToolApprovalRecord[];
}
