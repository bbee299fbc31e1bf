/**
 * The model of the engine's command-line options (`--model-url`, `--model`, `--model-key-env` /
 * `--model-key-file`), for the CLI and `npm start`: the key read from where the options say (never
 * the command line), and the OpenAI-compatible client loaded — a bundle of its own
 * (`dist/openaiModel.js`), which the extension's package leaves out.
 *
 * The key is checked before anything is sent (one line of printable characters, as a header value
 * must be: a malformed key would otherwise surface in an HTTP library's error), taken out of the
 * engine's environment once read (no git or helper process inherits it), and a key file that other
 * users can read is warned about, as SSH does.
 */
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import type { InvestigationLimits } from '../../contract/modelWire';
import { errorMessage } from '../../contract/errorMessage';
import type { ChatModel } from './chatModel';

/** The model of `--model-url`, `--model`, `--model-key-env` / `--model-key-file` and the limits. */
export interface ModelConfig {
  baseUrl: string;
  name: string;
  /** Where the key is (the CLI reads it); never the key itself, which the command line must not carry. */
  key?: { env: string } | { file: string };
  limits: Partial<InvestigationLimits>;
}

/** A key is a header value: printable ASCII without spaces, bounded. */
const MAX_KEY_CHARS = 4096;
const KEY_SHAPE = /^[\x21-\x7e]+$/;

export type ConfiguredModel = { model: ChatModel; warnings: string[] } | { problem: string; usage: boolean };

export async function configuredModel(config: ModelConfig): Promise<ConfiguredModel> {
  const warnings: string[] = [];
  let key: { apiKey?: string; keySource?: string } = {};
  if (config.key && 'env' in config.key) {
    const name = config.key.env;
    const value = process.env[name];
    // Read once, then gone from the environment: no process the engine starts inherits it.
    delete process.env[name];
    const problem = keyProblem(value?.trim());
    if (problem) return { problem: `--model-key-env ${name}: that environment variable ${problem}.`, usage: true };
    key = { apiKey: value!.trim(), keySource: `$${name}` };
  } else if (config.key) {
    const file = path.resolve(config.key.file);
    const read = await readKeyFile(file);
    if ('problem' in read) return { problem: `--model-key-file ${file}: ${read.problem}.`, usage: true };
    if (read.shared)
      warnings.push(
        `Warning: the key file ${file} can be read by other users of this machine (mode ${read.mode}); make it yours alone: chmod 600 ${JSON.stringify(file)}.`,
      );
    key = { apiKey: read.key, keySource: `the file ${file}` };
  }
  try {
    const { createOpenAiModel } = await import('./openaiModel');
    return { model: createOpenAiModel({ baseUrl: config.baseUrl, model: config.name, ...key, turnTimeoutMs: config.limits.timeoutMs }), warnings };
  } catch (error) {
    return {
      problem: `This copy of the engine has no model client (${errorMessage(error)}): run the engine from its repository (npm start, or node dist/engine.js after npm run build).`,
      usage: false,
    };
  }
}

/** What is wrong with a key, as the end of a sentence about where it came from; never its text. */
function keyProblem(key: string | undefined): string | undefined {
  if (!key) return 'is not set or is empty';
  if (key.length > MAX_KEY_CHARS) return `holds more than ${MAX_KEY_CHARS} characters, which is not a key`;
  if (/[\r\n]/.test(key)) return 'holds more than one line; it should hold the key alone';
  if (!KEY_SHAPE.test(key)) return 'holds spaces or characters a key does not have; it should hold the key alone';
  return undefined;
}

async function readKeyFile(file: string): Promise<{ key: string; shared: boolean; mode: string } | { problem: string }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return { problem: `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { problem: 'not a file' };
    // One read of at most a little more than a key: a larger file is not a key file, whatever it holds.
    const buffer = Buffer.alloc(MAX_KEY_CHARS + 3);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_KEY_CHARS + 2) return { problem: `the file is larger than a key (${MAX_KEY_CHARS} characters); it should hold the key alone` };
    // One line: a final line break is allowed.
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    const problem = keyProblem(text === '' ? undefined : text);
    if (problem) return { problem: problem === 'is not set or is empty' ? 'the file is empty; it should hold the key alone' : `the file ${problem}` };
    return { key: text, shared: (info.mode & 0o077) !== 0, mode: (info.mode & 0o777).toString(8).padStart(4, '0') };
  } finally {
    await handle.close();
  }
}
