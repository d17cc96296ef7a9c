import Anthropic from '@anthropic-ai/sdk';
import type { AiSettings } from '../../config.ts';

/** The Anthropic client for scripts, when ANTHROPIC_API_KEY is set (ANTHROPIC_BASE_URL for a proxy or a stand-in). */
export function claudeForScripts(settings: AiSettings['anthropic']): { client: Anthropic; model: string } | undefined {
  if (!settings) return undefined;
  const client = new Anthropic({ apiKey: settings.apiKey, baseURL: settings.baseUrl, timeout: settings.timeoutMs, maxRetries: 1 });
  return { client, model: settings.model };
}
