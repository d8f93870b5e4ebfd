import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { DomainError, Errors } from '@strata/domain/errors';
import { readResolveInput } from '@strata/domain/mcp';
import { ToolApprovals, presentApproval } from '@strata/mcp/approvals';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { ApprovalFilter } from '@strata/projections/mcp/mcp-read-model';

const RESOLVERS = ['owner', 'admin', 'member'];

/** Tool-call approvals (REFERENCE §15.10): the list, and a person's decision. */
@Injectable()
export class ApprovalHandlers {
  constructor(private readonly approvals: ToolApprovals) {}

  list(auth: AuthContext, f: ApprovalFilter) {
    const page = this.approvals.list(auth.org_id, f);
    return { items: page.items.map(presentApproval), has_more: page.has_more, limit: f.limit, offset: f.offset };
  }

  get(auth: AuthContext, id: string) {
    const a = this.approvals.approval(auth.org_id, id);
    if (!a) throw Errors.notFound(`approval ${id} not found`, { field: 'id', uid: id });
    return presentApproval(a);
  }

  async resolve(auth: AuthContext, rid: string, id: string, body: Record<string, unknown>) {
    if (!auth.role || !RESOLVERS.includes(auth.role)) throw new DomainError(403, 'insufficient_role', 'member role required', { required_role: 'member' });
    const input = readResolveInput(body);
    const a = await this.approvals.resolve(commandContext(auth, rid), id, input, { kind: auth.principal.kind, id: auth.principal.id });
    return presentApproval(a);
  }
}
