import { Body as ReqBody, Controller, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { BatchCreateResponse } from './batch.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, WritesInSpaces } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite, assertCanWriteInSpaces } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { GraphScope } from '../scope/graph-scope';
import { BatchCreateCommand } from './batch-create.handler';

@ApiTags('graph: batch')
@Controller()
export class BatchController {
  constructor(
    private readonly commands: CommandBus,
    private readonly scope: GraphScope,
  ) {}

  @Post('batch')
  @ApiKeyOrJwt()
  @WritesInSpaces()
  @ApiOperation({ summary: 'Create up to 1000 nodes and 5000 edges in one atomic request (refs link new nodes)' })
  @Answers(201, 'everything created, in one transaction', BatchCreateResponse)
  async batch(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown): Promise<BatchCreateResponse> {
    assertCanWriteInSpaces(auth);
    const body = assertObjectBody(raw);
    await this.scope.assertBatchEndpoints(auth, body.edges);
    return this.scope.concealing(auth, () => this.commands.execute(new BatchCreateCommand(commandContext(auth, rid, body), body)));
  }
}
