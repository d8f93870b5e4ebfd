import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ImportCounts } from '@strata/domain/maintenance';
import { Body } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { ImportService } from '@strata/maintenance/import.service';

export class ImportSnapshotCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

/** `POST /import`: the work is ImportService's, which the CLI calls directly. */
@CommandHandler(ImportSnapshotCommand)
export class ImportSnapshotHandler implements ICommandHandler<ImportSnapshotCommand, ImportCounts> {
  constructor(private readonly imports: ImportService) {}

  execute({ ctx, body }: ImportSnapshotCommand): Promise<ImportCounts> {
    return this.imports.importSnapshot(ctx, body);
  }
}
