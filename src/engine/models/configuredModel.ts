/**
 * The model of the engine's command-line options (`--model-url`, `--model`, `--model-key-env` /
 * `--model-key-file`), for the CLI and `npm start`: the key read from where the options say (never
 * the command line), and the OpenAI-compatible client loaded — a bundle of its own
 * (`dist/openaiModel.js`), which the extension's package leaves out.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ModelConfig } from '../cliArgs';
import { errorMessage } from '../../contract/errorMessage';
import type { ChatModel } from './chatModel';

/** A key file holds the key alone: larger is a mistake (a wrong file), not a key. */
const MAX_KEY_FILE_BYTES = 16 * 1024;

export async function configuredModel(config: ModelConfig): Promise<{ model: ChatModel } | { problem: string; usage: boolean }> {
  let key: { apiKey?: string; keySource?: string } = {};
  if (config.key && 'env' in config.key) {
    const value = process.env[config.key.env]?.trim();
    if (!value) return { problem: `--model-key-env ${config.key.env}: that environment variable is not set or is empty.`, usage: true };
    key = { apiKey: value, keySource: `$${config.key.env}` };
  } else if (config.key) {
    const file = path.resolve(config.key.file);
    const text = await readFile(file, 'utf8').then(
      (content) => (content.length > MAX_KEY_FILE_BYTES ? undefined : content.trim()),
      () => undefined,
    );
    if (!text)
      return { problem: `--model-key-file ${file}: the file cannot be read, is empty, or is larger than 16 KB; it should hold the key alone.`, usage: true };
    key = { apiKey: text, keySource: `the file ${file}` };
  }
  try {
    const { createOpenAiModel } = await import('./openaiModel');
    return { model: createOpenAiModel({ baseUrl: config.baseUrl, model: config.name, ...key, turnTimeoutMs: config.limits.timeoutMs }) };
  } catch (error) {
    return {
      problem: `This copy of the engine has no model client (${errorMessage(error)}): run the engine from its repository (npm start, or node dist/engine.js after npm run build).`,
      usage: false,
    };
  }
}
