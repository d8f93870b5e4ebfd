import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, Errors } from '@strata/domain/errors';
import { EmbeddingDeletedData, Streams } from '@strata/domain/events';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { RecordedEmbedding } from '@strata/domain/retrieval/embedding-events';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

export class SetNodeEmbeddingCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly vector: number[], readonly scope: ReadScope) {}
}
export class DeleteNodeEmbeddingCommand {
  constructor(readonly ctx: CommandContext, readonly uid: string, readonly scope: ReadScope) {}
}

/** `PUT /node/{uid}/embedding`: a client vector, pinned until replaced or deleted. */
@CommandHandler(SetNodeEmbeddingCommand)
export class SetNodeEmbeddingHandler implements ICommandHandler<SetNodeEmbeddingCommand> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
  ) {}

  async execute({ ctx, uid, vector, scope }: SetNodeEmbeddingCommand) {
    const cfg = await this.settings.effective(ctx.org);
    if (!cfg) throw this.settings.notConfigured(cfg, 'embeddings are not configured');
    if (vector.length !== cfg.dimensions)
      throw new DomainError(400, 'dimension_mismatch', `vector has ${vector.length} dimensions, the configuration has ${cfg.dimensions}`, {
        field: 'vector',
        expected: cfg.dimensions,
        actual: vector.length,
      });
    return this.uow.run(ctx, async (tx) => {
      const n = await tx.node(uid);
      if (!n || !scope.allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
      if (n.tombstone_at !== null) throw Errors.tombstoned('node', uid);
      const data: RecordedEmbedding = { uid, vector, model: cfg.model, updated_at: tx.now, source: 'explicit', text_hash: null };
      tx.emit(Streams.embedding(tx.org, uid), 'EmbeddingSet', data);
      return { uid, dimension: vector.length, updated_at: tx.now };
    });
  }
}

/** `DELETE /node/{uid}/embedding`: 501 before configuration (a vector route, §8.7), 404 when the node has no vector. */
@CommandHandler(DeleteNodeEmbeddingCommand)
export class DeleteNodeEmbeddingHandler implements ICommandHandler<DeleteNodeEmbeddingCommand> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(VECTORS) private readonly vectors: Vectors,
    private readonly settings: EmbeddingSettings,
  ) {}

  async execute({ ctx, uid, scope }: DeleteNodeEmbeddingCommand) {
    const cfg = await this.settings.effective(ctx.org);
    if (!cfg) throw this.settings.notConfigured(cfg, 'embeddings are not configured');
    return this.uow.run(ctx, async (tx) => {
      const n = await tx.node(uid);
      if (!n || !scope.allows(uid)) throw Errors.notFound(`node ${uid} not found`, { uid });
      const has = (await this.vectors.vectorOf(tx.org, uid)) !== undefined || (await tx.reader.getEmbedding(tx.org, uid)) !== null;
      if (!has) throw Errors.notFound(`node ${uid} has no embedding`, { uid });
      const data: EmbeddingDeletedData = { uid };
      tx.emit(Streams.embedding(tx.org, uid), 'EmbeddingDeleted', data);
      return { uid, deleted: true };
    });
  }
}
