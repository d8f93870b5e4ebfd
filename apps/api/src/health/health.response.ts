import { Nested, NullableStr, Num, OneOf, Str } from '../platform/http/responses/response-fields';

/** Which model serves the service: never its key or URL */
class LanguageModelInUse {
  @NullableStr('openai, anthropic or offline; null when none is configured')
  provider!: string | null;
  @NullableStr()
  model!: string | null;
}

/** `GET /health` once ready (REFERENCE §1.1, §9.6) */
export class HealthResponse {
  @OneOf(['ok'])
  status!: 'ok';
  @Str()
  version!: string;
  @Num('Unix seconds')
  time!: number;
  @Nested(() => LanguageModelInUse)
  llm!: LanguageModelInUse;
}

export class LiveResponse {
  @OneOf(['alive'])
  status!: 'alive';
}

export class ReadyResponse {
  @OneOf(['ready'])
  status!: 'ready';
}

/** 503 while starting or draining, with Retry-After */
export class NotReadyResponse {
  @OneOf(['starting', 'draining'])
  status!: 'starting' | 'draining';
}
