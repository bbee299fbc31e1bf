/**
 * The engine CLI's command line: a pure parser (no I/O, no exits) over `node:util` parseArgs, so
 * every case is unit-testable.
 * `cli.ts` acts on the result: usage on stdout and exit 0 for help, message + usage on stderr and
 * exit 2 for errors.
 */
import { parseArgs as parseArgv, type ParseArgsConfig } from 'node:util';
import { TOKEN_SCOPES } from '../contract/tokenScopes';
import { TOOL_SERVER_TOOLS, type ToolServerTool } from '../contract/toolServers';
import { DEFAULT_INVESTIGATION_LIMITS, INVESTIGATION_LIMIT_RANGES, type InvestigationLimits } from './models/chatModel';
import type { ModelConfig } from './models/configuredModel';
import { parseCorsOrigins } from './http/cors';

export interface CliConfig {
  /** Empty when none was given: the CLI then tries the current directory. */
  repos: string[];
  /** Undefined: the port this data folder used last time, else any free one. */
  port?: number;
  /** One user per token; empty: the CLI generates one. */
  tokens: string[];
  dataDir: string;
  paceMs?: number;
  sharing: boolean;
  /** Work done at once (`--max-answers`, `--max-tool-calls`); undefined: the engine's defaults. */
  limits: { answers?: number; toolCalls?: number };
  /** `--ripgrep`: a ripgrep executable for the searches made before a repository's index is ready. */
  ripgrepPath?: string;
  /** `--index-budget`, in bytes. */
  indexBudgetBytes?: number;
  /** `--conversation-apis`: which conversation APIs to serve; undefined: both (as 7.x servers do). */
  conversationApis?: ConversationApis;
  /** `--tool-server`: which tool server endpoints to serve; undefined: both generations (as 7.x servers do). */
  toolServer?: ToolServerGeneration;
  /** `--tool-protocol`: which lanes of MCP the tool server speaks; undefined: both. */
  toolProtocol?: ToolProtocol;
  /** `--disable-tool`: tools left out of every endpoint, by their 2026 names; absent when none. */
  disabledTools?: ToolServerTool[];
  /** `--scopes`: the scopes of every token (a scoped token); absent: unscoped tokens. */
  scopes?: string[];
  /** `--no-oauth` turns the OAuth authorization server off. */
  oauth: boolean;
  /** `--oauth-client`: public OAuth clients pre-registered, with their redirect URIs. */
  oauthClients: Array<{ id: string; redirectUris: string[] }>;
  /** `--cors-origin`: web origins whose pages may call the APIs (an instance's `corsOrigin`); absent: none. */
  corsOrigins?: string[];
  /** `--model-url` and the rest: an OpenAI-compatible model that investigates; absent: the engine answers on its own. */
  model?: ModelConfig;
}

export const CONVERSATION_APIS = ['legacy', 'both', 'connect'] as const;
export type ConversationApis = (typeof CONVERSATION_APIS)[number];

export const TOOL_SERVER_GENERATIONS = ['both', 'current', 'v1', 'none'] as const;
export type ToolServerGeneration = (typeof TOOL_SERVER_GENERATIONS)[number];

export const TOOL_PROTOCOLS = ['2025', '2026', 'both'] as const;
export type ToolProtocol = (typeof TOOL_PROTOCOLS)[number];

export type CliCommand = { kind: 'run'; config: CliConfig } | { kind: 'help' } | { kind: 'error'; message: string };

/** The scopes 7.x servers know (the OAuth identity scopes included, which reach no API). */
const KNOWN_SCOPES = [...Object.values(TOKEN_SCOPES), 'openid', 'profile', 'email', 'offline_access'] as const;

export const DEFAULT_DATA_DIR = '.engine-data';

export const USAGE = `Usage: deep-search-engine [options]

Serves the Deep Search conversation API from local git repositories on 127.0.0.1.

Options:
  --repo <dir>     a git repository to answer from (repeatable; default: the current directory)
  --port <n>       TCP port on 127.0.0.1 (default: the one this --data folder used last, else any
                   free port, so links in stored answers keep working; 0 for any free port)
  --token <t>      an access token; each one is a separate user (repeatable; default: one generated token)
  --data <dir>     where conversations are stored (default: ./${DEFAULT_DATA_DIR})
  --pace <ms>      pause between the answerer's steps, in milliseconds (default: 150)
  --max-answers <n>     questions answered at once; the rest wait their turn (default: 4)
  --max-tool-calls <n>  tool calls run at once; the rest wait their turn (default: 4)
  --ripgrep <path>      a ripgrep executable (such as VS Code's) for searches made while a
                        repository's search index builds (default: git grep answers them)
  --index-budget <MiB>  files the search indexes of all repositories hold in memory together,
                        in MiB; their memory is about 1.5 times this. Past it, a repository's
                        index holds the files that fit and each search reads the rest
                        (default: 512; 0: no index)
  --conversation-apis <legacy|both|connect>
                   the conversation APIs served: legacy (/.api/deepsearch/v1 only, as 6.x servers),
                   connect (/api/deepsearch.v1.Service only) or both (default, as 7.x servers)
  --tool-server <both|current|v1|none>
                   the tool server (MCP) endpoints served: current (2026's /.api/mcp/all, /.api/mcp and
                   /.api/mcp/deepsearch), v1 (/.api/mcp/v1 only, as 6.8–6.x servers), none, or both
                   (default, as 7.x servers)
  --tool-protocol <2025|2026|both>
                   the MCP revisions the tool server speaks on every endpoint: 2025 (the initialize
                   handshake, 2025-11-25 and earlier), 2026 (the stateless 2026-07-28 revision only)
                   or both (default: a request that carries the 2026 _meta is served statelessly,
                   an initialize keeps the handshake)
  --disable-tool <name>
                   leave a tool out of every endpoint, as an admin's mcp.tools.disabled does; 2026
                   names such as nls_search (repeatable)
  --scopes <list>  make the tokens scoped, as 7.x scoped and OAuth tokens are: a comma-separated list of
                   ${KNOWN_SCOPES.join(', ')}; what needs another scope is refused
                   with a 403 that names it (default: unscoped tokens reach everything)
  --oauth-client <id>=<redirect URI>[,<redirect URI>…]
                   pre-register a public OAuth client, as an admin does on an instance (repeatable);
                   a loopback redirect URI (http://127.0.0.1/...) matches on any port
  --no-oauth       no OAuth authorization server (default: on, at /.auth/idp/oauth, clients may
                   register themselves and then reach the tool server only)
  --no-sharing     read tokens open only the owner's own conversations
  --cors-origin <origins>
                   web origins whose pages may call the conversation APIs, the tool server and
                   OAuth's endpoints, as an instance's corsOrigin: space-separated (or repeated),
                   each a scheme, host and optional port, such as https://vscode.dev, or
                   https://*.vscode-cdn.net for every subdomain of a host (default: none;
                   requests from other origins get no CORS header, so browsers block them)
  --model-url <url>     an OpenAI-compatible server whose model investigates each question with the
                        engine's tools (Ollama: http://127.0.0.1:11434/v1; LM Studio, llama.cpp,
                        vLLM and hosted APIs alike); the question and the code the model reads go
                        to it (default: none, the engine answers on its own)
  --model <name>        the model to use on that server (required with --model-url)
  --model-key-env <VAR> the environment variable that holds the server's API key
  --model-key-file <path>
                        a file that holds the server's API key (a key is never given on the command
                        line; local servers usually need none)
  --model-steps <n>     model turns that may call tools per question (default: ${DEFAULT_INVESTIGATION_LIMITS.maxSteps})
  --model-tokens <n>    tokens in and out per question (default: ${DEFAULT_INVESTIGATION_LIMITS.maxTokens})
  --model-timeout <s>   seconds per question, model and tools (default: ${DEFAULT_INVESTIGATION_LIMITS.timeoutMs / 1000}); past any
                        limit the engine answers on its own and says why
  -h, --help       show this help

Clients send "Authorization: token <t>" and "X-Requested-With: <client> <version>".`;

/** Every option, as `node:util` parseArgs takes them; values are checked in `apply`. */
const OPTIONS = {
  repo: { type: 'string', multiple: true },
  port: { type: 'string' },
  token: { type: 'string', multiple: true },
  data: { type: 'string' },
  pace: { type: 'string' },
  'max-answers': { type: 'string' },
  'max-tool-calls': { type: 'string' },
  ripgrep: { type: 'string' },
  'index-budget': { type: 'string' },
  'conversation-apis': { type: 'string' },
  'tool-server': { type: 'string' },
  'tool-protocol': { type: 'string' },
  'disable-tool': { type: 'string', multiple: true },
  scopes: { type: 'string', multiple: true },
  'oauth-client': { type: 'string', multiple: true },
  'no-oauth': { type: 'boolean' },
  'no-sharing': { type: 'boolean' },
  'cors-origin': { type: 'string', multiple: true },
  'model-url': { type: 'string' },
  model: { type: 'string' },
  'model-key-env': { type: 'string' },
  'model-key-file': { type: 'string' },
  'model-steps': { type: 'string' },
  'model-tokens': { type: 'string' },
  'model-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The command line, read by `node:util` parseArgs (its tokens, in order, so that each value is
 * checked with a message that names the flag and says what to write instead).
 */
export function parseArgs(argv: readonly string[]): CliCommand {
  const { tokens } = parseArgv({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help')) return { kind: 'help' };
  const config: CliConfig = { repos: [], tokens: [], dataDir: DEFAULT_DATA_DIR, sharing: true, limits: {}, oauth: true, oauthClients: [] };
  const model: ModelFlags = { limits: {}, given: [] };
  for (const token of tokens) {
    if (token.kind === 'positional') return { kind: 'error', message: `Unexpected argument "${token.value}".` };
    if (token.kind !== 'option') continue;
    const flag = `--${token.name}`;
    const option = (OPTIONS as Record<string, { type: 'string' | 'boolean' }>)[token.name];
    if (!option || token.rawName.startsWith('--') === false) return { kind: 'error', message: `Unknown option ${token.rawName}.` };
    if (option.type === 'boolean') {
      if (token.value !== undefined) return { kind: 'error', message: `${flag} takes no value.` };
      if (flag === '--no-oauth') config.oauth = false;
      else config.sharing = false;
      continue;
    }
    const value = token.value;
    // `--repo --port 1`: the next flag is not the value.
    if (value === undefined || (!token.inlineValue && value.startsWith('-') && value.length > 1)) return { kind: 'error', message: `${flag} needs a value.` };
    if (value === '') return { kind: 'error', message: `${flag} needs a non-empty value.` };
    const problem = flag.startsWith('--model') ? applyModel(model, flag, value) : apply(config, flag, value);
    if (problem) return { kind: 'error', message: problem };
  }
  const problem = finishModel(config, model);
  return problem ? { kind: 'error', message: problem } : { kind: 'run', config };
}

/** The `--model…` flags as given, before they are checked together. */
interface ModelFlags {
  url?: string;
  name?: string;
  keyEnv?: string;
  keyFile?: string;
  limits: Partial<InvestigationLimits>;
  given: string[];
}

/** Query parameters that carry a credential (`api-key`, `access_token`, `key`, `sig`…): never on a command line, where logs and `ps` show it. */
const CREDENTIAL_PARAMETER =
  /(?:^|[-_.])(?:key|apikey|token|secret|password|passwd|pwd|auth|authorization|sig|signature|credentials?|code)$|^(?:api|access|auth)[-_]?key/i;

function applyModel(model: ModelFlags, flag: string, value: string): string | undefined {
  if (model.given.includes(flag)) return `${flag} was given twice: give it once.`;
  model.given.push(flag);
  switch (flag) {
    case '--model-url': {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
        return `--model-url must be an http or https URL such as http://127.0.0.1:11434/v1, not "${value.slice(0, 60)}".`;
      if (url.username || url.password) return '--model-url must not hold a user name or password: give the key with --model-key-env or --model-key-file.';
      const credential = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAMETER.test(name));
      if (credential !== undefined)
        return `--model-url must not hold a credential (its query has "${credential.slice(0, 40)}"): give the key with --model-key-env or --model-key-file, which send it in the Authorization header.`;
      model.url = value;
      return undefined;
    }
    case '--model':
      if (value.length > 200) return '--model is a model name of at most 200 characters.';
      model.name = value;
      return undefined;
    case '--model-key-env':
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(value))
        return `--model-key-env takes the name of an environment variable (such as OPENAI_API_KEY), not "${value.slice(0, 40)}": the key itself never goes on the command line.`;
      model.keyEnv = value;
      return undefined;
    case '--model-key-file':
      model.keyFile = value;
      return undefined;
    case '--model-steps':
    case '--model-tokens':
    case '--model-timeout': {
      const key = flag === '--model-steps' ? 'maxSteps' : flag === '--model-tokens' ? 'maxTokens' : 'timeoutMs';
      const scale = key === 'timeoutMs' ? 1000 : 1;
      const { min, max } = INVESTIGATION_LIMIT_RANGES[key];
      const number = wholeNumber(value);
      if (number === undefined || number * scale < min || number * scale > max)
        return `${flag} must be a whole number from ${min / scale} to ${max / scale}, not "${value.slice(0, 40)}".`;
      model.limits[key] = number * scale;
      return undefined;
    }
    default:
      return `Unknown option ${flag}.`;
  }
}

function finishModel(config: CliConfig, model: ModelFlags): string | undefined {
  if (model.given.length === 0) return undefined;
  if (model.url === undefined) return `${model.given[0]} needs --model-url, the OpenAI-compatible server of the model.`;
  if (model.name === undefined) return '--model-url needs --model, the name of the model on that server (for Ollama, one `ollama list` shows).';
  if (model.keyEnv !== undefined && model.keyFile !== undefined) return 'Give the key with --model-key-env or --model-key-file, not both.';
  const key = model.keyEnv !== undefined ? { env: model.keyEnv } : model.keyFile !== undefined ? { file: model.keyFile } : undefined;
  config.model = { baseUrl: model.url, name: model.name, ...(key ? { key } : {}), limits: model.limits };
  return undefined;
}

/** Stores one flag's value; returns what is wrong with it, if anything. */
function apply(config: CliConfig, flag: string, value: string): string | undefined {
  switch (flag) {
    case '--repo':
      config.repos.push(value);
      return undefined;
    case '--data':
      config.dataDir = value;
      return undefined;
    case '--ripgrep':
      if (config.ripgrepPath !== undefined) return '--ripgrep was given twice: give one ripgrep executable.';
      config.ripgrepPath = value;
      return undefined;
    case '--conversation-apis':
      return oneOf(flag, CONVERSATION_APIS, value, (chosen) => (config.conversationApis = chosen));
    case '--tool-server':
      return oneOf(flag, TOOL_SERVER_GENERATIONS, value, (chosen) => (config.toolServer = chosen));
    case '--tool-protocol':
      return oneOf(flag, TOOL_PROTOCOLS, value, (chosen) => (config.toolProtocol = chosen));
    case '--disable-tool': {
      const tool = value.replace(/^sg_/, '');
      if (!(TOOL_SERVER_TOOLS as readonly string[]).includes(tool)) {
        return `--disable-tool takes a tool name (${TOOL_SERVER_TOOLS.join(', ')}), not "${value.slice(0, 40)}".`;
      }
      config.disabledTools = [...new Set([...(config.disabledTools ?? []), tool as ToolServerTool])];
      return undefined;
    }
    case '--scopes': {
      const scopes = value
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean);
      const unknown = scopes.find((scope) => !(KNOWN_SCOPES as readonly string[]).includes(scope));
      if (unknown !== undefined) return `--scopes takes ${KNOWN_SCOPES.join(', ')}, not "${unknown.slice(0, 40)}".`;
      config.scopes = [...new Set([...(config.scopes ?? []), ...scopes])];
      return undefined;
    }
    case '--cors-origin': {
      const parsed = parseCorsOrigins([...(config.corsOrigins ?? []), value]);
      if ('problem' in parsed) return parsed.problem;
      config.corsOrigins = parsed.origins;
      return undefined;
    }
    case '--oauth-client': {
      const [id = '', uris = ''] = value.split(/=(.*)/s);
      const redirectUris = uris
        .split(',')
        .map((uri) => uri.trim())
        .filter(Boolean);
      if (!/^[A-Za-z0-9._-]{1,100}$/.test(id) || redirectUris.length === 0) {
        return `--oauth-client takes <client id>=<redirect URI>[,<redirect URI>…], such as deep-search-vscode=http://127.0.0.1/callback, not "${value.slice(0, 60)}".`;
      }
      const invalid = redirectUris.find((uri) => !URL.canParse(uri));
      if (invalid !== undefined) return `--oauth-client: "${invalid.slice(0, 60)}" is not an absolute URI.`;
      if (config.oauthClients.some((client) => client.id === id))
        return `--oauth-client ${id} was given twice: give each client once, with all its redirect URIs.`;
      config.oauthClients.push({ id, redirectUris });
      return undefined;
    }
    case '--token':
      if (/\s/.test(value)) return '--token must not contain spaces.';
      if (config.tokens.includes(value)) return 'The same --token was given twice: each token is a separate user.';
      config.tokens.push(value);
      return undefined;
    case '--port': {
      const port = wholeNumber(value);
      if (port === undefined || port > 65_535) return `--port must be a whole number from 0 to 65535, not "${value}".`;
      config.port = port;
      return undefined;
    }
    case '--pace': {
      const pace = wholeNumber(value);
      if (pace === undefined) return `--pace must be a whole number of milliseconds, not "${value}".`;
      config.paceMs = pace;
      return undefined;
    }
    case '--index-budget': {
      const mebibytes = wholeNumber(value);
      if (mebibytes === undefined || mebibytes > 1024 * 1024)
        return `--index-budget must be a whole number of MiB from 0 to 1048576, not "${value.slice(0, 40)}".`;
      config.indexBudgetBytes = mebibytes * 1024 * 1024;
      return undefined;
    }
    case '--max-answers':
    case '--max-tool-calls': {
      const limit = wholeNumber(value);
      if (limit === undefined || limit < 1 || limit > 1000) return `${flag} must be a whole number from 1 to 1000, not "${value}".`;
      if (flag === '--max-answers') config.limits.answers = limit;
      else config.limits.toolCalls = limit;
      return undefined;
    }
    default:
      return `Unknown option ${flag}.`;
  }
}

/** Takes a value that must be one of `values`, or says which it may be. */
function oneOf<T extends string>(flag: string, values: readonly T[], value: string, take: (chosen: T) => void): string | undefined {
  const chosen = values.find((candidate) => candidate === value);
  if (chosen === undefined) return `${flag} must be one of ${values.join(', ')}, not "${value.slice(0, 40)}".`;
  take(chosen);
  return undefined;
}

function wholeNumber(value: string): number | undefined {
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}
