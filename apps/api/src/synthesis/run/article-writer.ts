import { ChatModel, structuredCall } from '@strata/ai';
import { ARTICLE_OUTPUT_SCHEMA, ArticleMaterial, ArticleText, articlePrompt, readModelArticle, structuralArticle } from '@strata/domain/synthesis';

export interface WrittenArticle extends ArticleText {
  /** `offline`, or `<provider>:<model>` */
  generated_by: string;
}

/**
 * Writes one synthesis Article: with a chat model, the model writes it from the cluster's
 * material (structured output; an answer that does not fit is sent back once with what is
 * wrong, then StructuredOutputError); under `offline` (no chat model), the structural text of
 * REFERENCE §9.6. A model failure fails the run: nothing is written.
 */
export class ArticleWriter {
  constructor(private readonly chat: ChatModel | null) {}

  async write(m: ArticleMaterial, signal?: AbortSignal): Promise<WrittenArticle> {
    if (!this.chat) return { ...structuralArticle(m), generated_by: 'offline' };
    const prompt = articlePrompt(m);
    const { value } = await structuredCall(
      this.chat,
      { system: prompt.system, messages: [{ role: 'user', content: prompt.user }], output: { name: 'synthesis_article', schema: ARTICLE_OUTPUT_SCHEMA }, signal },
      (v) => {
        const read = readModelArticle(v);
        return 'error' in read ? [read.error] : [];
      },
    );
    const read = readModelArticle(value);
    if ('error' in read) throw new Error(read.error); // validated above: unreachable
    return { ...read.article, generated_by: `${this.chat.provider}:${this.chat.model}` };
  }
}
