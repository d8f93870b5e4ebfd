import { DynamicModule, Module } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { Clock } from '@strata/domain/time';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { PlatformModule } from '@strata/platform/platform.module';
import { HttpPlatformModule } from './platform/http/http-platform.module';
import { HealthModule } from './health/health.module';
import { GraphModule } from './graph/graph.module';
import { AccountsModule } from './accounts/accounts.module';
import { CognitiveModule } from './cognitive/cognitive.module';
import { RetrievalModule } from './retrieval/retrieval.module';
import { OperationsModule } from './operations/operations.module';
import { JobsModule } from './jobs/jobs.module';
import { SynthesisModule } from './synthesis/synthesis.module';
import { GovernanceModule } from './governance/governance.module';
import { OntologyModule } from './ontology/ontology.module';
import { IngestionModule } from './ingestion/ingestion.module';
import { McpModule } from './mcp/mcp.module';
import { BriefsModule } from './briefs/briefs.module';
import { AgentsModule } from './agents/agents.module';
import { KnowledgeHealthModule } from './knowledge-health/knowledge-health.module';
import { DtoBodyPipe } from './platform/http/dto/dto-body.pipe';

/** One import per area of the interface (DESIGN layout). */
const AREA_MODULES = [
  HealthModule,
  JobsModule,
  GraphModule,
  AccountsModule,
  CognitiveModule,
  RetrievalModule,
  OperationsModule,
  SynthesisModule,
  GovernanceModule,
  OntologyModule,
  IngestionModule,
  McpModule,
  BriefsModule,
  AgentsModule,
  KnowledgeHealthModule,
];

@Module({})
export class AppModule {
  static forRoot(config?: StrataConfig, clock?: Clock): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot(config, clock), HttpPlatformModule, CqrsModule.forRoot(), ...AREA_MODULES],
      // management bodies typed as DTO classes are validated into them; other bodies pass through
      providers: [{ provide: APP_PIPE, useClass: DtoBodyPipe }],
    };
  }
}
