import { ChatModel, LanguageModels } from '@strata/ai';
import { UpstreamError } from '@strata/ai';
import { ARTICLE_OUTPUT_SCHEMA, ArticleMaterial, ArticleText, articlePrompt, readModelArticle, structuralArticle } from '@strata/domain/synthesis';

export interface WrittenArticle extends ArticleText {
  /** `offline`, or `<provider>:<model>` */
  generated_by: string;
}

/**
 * Writes one synthesis Article: with a chat model, the model writes it from the cluster's
 * material (structured output, one retry naming what was wrong); under `offline`, the
 * structural text of REFERENCE §9.6. A model failure fails the run: nothing is written.
 */
export class ArticleWriter {
  constructor(private readonly models: LanguageModels) {}

  async write(m: ArticleMaterial, signal?: AbortSignal): Promise<WrittenArticle> {
    const chat = this.models.chat;
    if (!chat) return { ...structuralArticle(m), generated_by: 'offline' };
    return { ...(await this.ask(chat, m, signal)), generated_by: `${chat.provider}:${chat.model}` };
  }

  private async ask(chat: ChatModel, m: ArticleMaterial, signal?: AbortSignal): Promise<ArticleText> {
    const prompt = articlePrompt(m);
    const messages: { role: 'user' | 'assistant'; content: string }[] = [{ role: 'user', content: prompt.user }];
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await chat.chat({ system: prompt.system, messages, output: { name: 'synthesis_article', schema: ARTICLE_OUTPUT_SCHEMA }, signal });
      const read = readModelArticle(res.json);
      if ('article' in read) return read.article;
      messages.push({ role: 'assistant', content: res.text }, { role: 'user', content: `That answer is not valid: ${read.error}. Answer again with JSON matching the schema.` });
    }
    throw new UpstreamError(`${chat.provider}: the model's article did not match the schema twice`, chat.provider);
  }
}
