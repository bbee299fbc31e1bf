/**
 * The question set of the figure "answers on real repositories" (bench/figures/answerQuality.ts):
 * public projects nobody here wrote, pinned to the versions the registries of this machine serve
 * (npm, and Debian bookworm's source packages for Python, Go and Rust), and for each a question a
 * new user of that project would ask, with where the answer is: the implementation file and the
 * answering lines at the pinned version, as line numbers and as a short exact snippet of one of
 * those lines (the figure checks both against the installed source before it asks anything).
 *
 * This module holds facts about the projects, never their code: the projects are installed at bench
 * time (bench/answers/projects.ts) into git repositories under `.bench/answers/` (git-ignored).
 *
 * Rules the questions follow: worded as a user would ask, without looking at any engine's answer;
 * some name an identifier, some use plain words only (`names`); every answer is implementation
 * code (not tests, examples or docs); the lines are the ones that do what the question asks.
 */

export type Language = 'JavaScript' | 'Python' | 'Go' | 'Rust' | 'Java' | 'C';

/** Where a project's files come from. */
export type ProjectSource =
  /**
   * `npm pack <name>@<version>`: the package's own files (its `package/` folder, or the folder `tree`
   * inside it when the project is a part of the package), none of its dependencies.
   */
  | { registry: 'npm'; name: string; version: string; tree?: string }
  /**
   * `apt-get download <name>=<version>` and `dpkg-deb -x` (nothing installed on the system): the
   * folder `tree` of the package's files becomes the folder `into` of the repository ('' = its root).
   */
  | { registry: 'debian'; name: string; version: string; tree: string; into: string };

export interface Project {
  /** Short id, also the folder of its repository under `.bench/answers/repos/`. */
  id: string;
  /** Shown in the table: the project and its pinned version. */
  title: string;
  language: Language;
  /** The repository's `origin`, so that the engine names it as the project is known (`github.com/org/repo`). */
  origin: string;
  source: ProjectSource;
}

/** One place that answers a question. */
export interface AnswerSite {
  /** Path in the project's repository, `/`-separated. */
  path: string;
  /** The answering lines, 1-based and inclusive, at the pinned version. */
  lines: readonly [number, number];
  /** Exact text (a part of one line, leading and trailing spaces aside) of one of those lines, to check them. */
  text: string;
}

export interface BenchQuestion {
  /** The project's id. */
  project: string;
  question: string;
  /**
   * The same question as a paragraph describing the code, as a user pastes a ticket or a spec:
   * written here in a user's words (never copied from the code's comments), naming no identifier.
   */
  paragraph: string;
  /** Whether the question names an identifier of the code (`res.cookie`, `HTTPDigestAuth`), rather than plain words only. */
  names: boolean;
  /** Any of these answers it; the first is the main one. */
  answers: readonly AnswerSite[];
}

export const PROJECTS: readonly Project[] = [
  {
    id: 'express',
    title: 'express 4.21.2',
    language: 'JavaScript',
    origin: 'https://github.com/expressjs/express.git',
    source: { registry: 'npm', name: 'express', version: '4.21.2' },
  },
  {
    id: 'requests',
    title: 'requests 2.28.1',
    language: 'Python',
    origin: 'https://github.com/psf/requests.git',
    source: { registry: 'debian', name: 'python3-requests', version: '2.28.1+dfsg-1', tree: 'usr/lib/python3/dist-packages/requests', into: 'requests' },
  },
  {
    id: 'cobra',
    title: 'cobra 1.6.1',
    language: 'Go',
    origin: 'https://github.com/spf13/cobra.git',
    source: { registry: 'debian', name: 'golang-github-spf13-cobra-dev', version: '1.6.1-1', tree: 'usr/share/gocode/src/github.com/spf13/cobra', into: '' },
  },
  {
    id: 'ureq',
    title: 'ureq 2.6.2',
    language: 'Rust',
    origin: 'https://github.com/algesten/ureq.git',
    source: { registry: 'debian', name: 'librust-ureq-dev', version: '2.6.2-3', tree: 'usr/share/cargo/registry/ureq-2.6.2', into: '' },
  },
  {
    id: 'cordova',
    title: 'cordova-android 12.0.1',
    language: 'Java',
    origin: 'https://github.com/apache/cordova-android.git',
    source: { registry: 'npm', name: 'cordova-android', version: '12.0.1' },
  },
  {
    id: 'tree-sitter',
    title: 'tree-sitter 0.21.1 (its C library)',
    language: 'C',
    origin: 'https://github.com/tree-sitter/tree-sitter.git',
    source: { registry: 'npm', name: 'tree-sitter', version: '0.21.1', tree: 'vendor/tree-sitter/lib' },
  },
];

export const QUESTIONS: readonly BenchQuestion[] = [
  // express 4.21.2 (npm): lib/ is the implementation; History.md and Readme.md are docs.
  {
    project: 'express',
    question: 'How does res.cookie sign a cookie value?',
    paragraph:
      "When my app sets a cookie and asks for it to be signed, something has to turn the plain value into a tamper-proof one using the app's secret. I want the code that takes the value, marks it and appends a signature before the cookie header is written.",
    names: true,
    answers: [{ path: 'lib/response.js', lines: [875, 877], text: "val = 's:' + sign(val, secret);" }],
  },
  {
    project: 'express',
    question: 'When does Express answer 304 Not Modified instead of sending the body?',
    paragraph:
      "Browsers send conditional requests with an entity tag or a last-modified date. Somewhere the framework decides that the client's cached copy is still fresh, sets the status to not modified and leaves the body out instead of sending it again.",
    names: false,
    answers: [
      { path: 'lib/response.js', lines: [209, 218], text: 'if (req.fresh) this.statusCode = 304;' },
      { path: 'lib/request.js', lines: [467, 484], text: 'return fresh(this.headers, {' },
    ],
  },
  {
    project: 'express',
    question: 'How does app.listen start the HTTP server?',
    paragraph:
      'I call one method on my application object with a port and a callback, and a web server starts accepting connections. I am looking for the place where the framework creates the underlying Node server from the application and hands it those arguments.',
    names: true,
    answers: [{ path: 'lib/application.js', lines: [633, 636], text: 'var server = http.createServer(this);' }],
  },
  {
    project: 'express',
    question: "How is the client's IP address worked out when the app runs behind a reverse proxy?",
    paragraph:
      "Our service sits behind a load balancer, so the socket address is the balancer's and the real visitor's address is in a forwarded header. Show me the code that works out the remote address of the visitor, taking into account which proxies are trusted.",
    names: false,
    answers: [
      { path: 'lib/request.js', lines: [349, 352], text: 'return proxyaddr(this, trust);' },
      { path: 'lib/utils.js', lines: [215, 235], text: 'return proxyaddr.compile(val || []);' },
    ],
  },
  {
    project: 'express',
    question: 'What does res.redirect put in the response body?',
    paragraph:
      "When the app sends the browser to another location, the response also carries a short body, which differs depending on whether the client wants HTML or plain text. I'm looking for the code that builds that body along with the status and the location header.",
    names: true,
    answers: [{ path: 'lib/response.js', lines: [965, 979], text: "body = statuses.message[status] + '. Redirecting to ' + address" }],
  },
  {
    project: 'express',
    question: 'Which settings does a new application get by default?',
    paragraph:
      'A freshly created application already has a number of configuration values set before I touch anything: the environment, where views live, how entity tags are made, how query strings are parsed and so on. Where are these initial values put in place?',
    names: false,
    answers: [
      { path: 'lib/application.js', lines: [80, 86], text: "this.set('etag', 'weak');" },
      { path: 'lib/application.js', lines: [120, 127], text: "this.set('jsonp callback name', 'callback');" },
    ],
  },
  {
    project: 'express',
    question: 'How does res.render find the template file on disk?',
    paragraph:
      'Given the name of a view, the framework has to locate the matching template on disk, trying the configured view folders and the default file extension, before a template engine renders it. I need the lookup that resolves the path.',
    names: true,
    answers: [
      { path: 'lib/view.js', lines: [104, 123], text: 'path = this.resolve(dir, file);' },
      { path: 'lib/view.js', lines: [146, 164], text: "path = join(dir, basename(file, ext), 'index' + ext);" },
    ],
  },
  {
    project: 'express',
    question: "How are <, > and & escaped in JSON responses when the 'json escape' setting is on?",
    paragraph:
      'There is an option that makes JSON output safe to embed in HTML by replacing the less-than, greater-than and ampersand characters with unicode escapes. Find the code that turns the body into a string and applies those replacements.',
    names: true,
    answers: [
      { path: 'lib/response.js', lines: [1162, 1176], text: 'json = json.replace(/[<>&]/g, function (c) {' },
      { path: 'lib/response.js', lines: [266, 271], text: "var escape = app.get('json escape')" },
    ],
  },
  {
    project: 'express',
    question: 'What happens when a middleware calls next(err) with an error?',
    paragraph:
      'When one of my handlers passes an error on instead of responding, the router has to skip the ordinary handlers and look for the next error-handling one, or fall through to the final handler. Where is that dispatch loop?',
    names: true,
    answers: [
      { path: 'lib/router/index.js', lines: [325, 329], text: 'layer.handle_error(layerError, req, res, next);' },
      { path: 'lib/router/layer.js', lines: [62, 75], text: 'if (fn.length !== 4) {' },
    ],
  },
  {
    project: 'express',
    question: 'How is the query string parsed into req.query?',
    paragraph:
      'Every incoming request gets the search part of its URL turned into an object of keys and values, using a parser the app is configured with (simple or extended). Where is that parsing done and the result attached to the request?',
    names: true,
    answers: [
      { path: 'lib/middleware/query.js', lines: [39, 46], text: 'req.query = queryparse(val, opts);' },
      { path: 'lib/utils.js', lines: [182, 205], text: 'fn = parseExtendedQueryString;' },
      { path: 'lib/utils.js', lines: [288, 292], text: 'return qs.parse(str, {' },
    ],
  },
  {
    project: 'express',
    question: 'Where is the X-Powered-By header added to responses, and how is it turned off?',
    paragraph:
      'Responses carry a header advertising the framework by default. I want to know where it is set while the app initialises and which option switches it off.',
    names: false,
    answers: [
      { path: 'lib/middleware/init.js', lines: [30, 30], text: "if (app.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'Express');" },
      { path: 'lib/application.js', lines: [81, 81], text: "this.enable('x-powered-by');" },
    ],
  },
  {
    project: 'express',
    question: 'What happens when a route parameter in the URL has invalid percent-encoding?',
    paragraph:
      'If a path segment captured by a route contains a malformed escape sequence, such as a stray percent sign, decoding it fails. I want the code that decodes captured path values and turns such a failure into a client error.',
    names: false,
    answers: [{ path: 'lib/router/layer.js', lines: [166, 181], text: 'err.status = err.statusCode = 400;' }],
  },
  {
    project: 'express',
    question: 'How is the JSONP callback name sanitized before it is written into the response?',
    paragraph:
      'For cross-domain script responses the client names a callback function in the URL. Before that name is inserted into the script sent back, characters that are not allowed must be stripped. Where is this cleaning done?',
    names: false,
    answers: [{ path: 'lib/response.js', lines: [323, 349], text: String.raw`callback = callback.replace(/[^\[\]\w$.]/g, '');` }],
  },
  {
    project: 'express',
    question: 'How does res.format pick the response type, and what happens when the client accepts none of them?',
    paragraph:
      'A handler can offer several representations keyed by media type, and the framework picks one based on what the client says it accepts, calling the matching function. If nothing matches it must respond with a not-acceptable error. Where is this negotiation?',
    names: true,
    answers: [{ path: 'lib/response.js', lines: [684, 709], text: 'next(createError(406, {' }],
  },

  // requests 2.28.1 (Debian python3-requests 2.28.1+dfsg-1): the package requests/.
  {
    project: 'requests',
    question: 'How does the adapter retry failed connections?',
    paragraph:
      "When opening a connection to a server fails, the HTTP transport can try again a configured number of times. I'm looking for where that retry policy is set up when the transport is created and handed to the connection pool.",
    names: false,
    answers: [
      { path: 'requests/adapters.py', lines: [143, 146], text: 'self.max_retries = Retry(0, read=False)' },
      { path: 'requests/adapters.py', lines: [487, 500], text: 'retries=self.max_retries,' },
    ],
  },
  {
    project: 'requests',
    question: 'Why is the Authorization header removed when a redirect goes to another host?',
    paragraph:
      'For security, credentials sent to one site must not leak when the server sends the client on to a different site. Find the code that, while following a redirect, decides whether to drop the credentials header by comparing the old and the new location.',
    names: false,
    answers: [
      { path: 'requests/sessions.py', lines: [283, 301], text: 'del headers["Authorization"]' },
      { path: 'requests/sessions.py', lines: [127, 157], text: 'if old_parsed.hostname != new_parsed.hostname:' },
    ],
  },
  {
    project: 'requests',
    question: 'What happens to a POST request when the server answers with a 302 or 303 redirect?',
    paragraph:
      'Browsers change the method of a form submission to a plain retrieval when the server answers with certain redirect statuses. Where does the library rewrite the method of the next request while it follows such a redirect?',
    names: false,
    answers: [{ path: 'requests/sessions.py', lines: [332, 352], text: 'if response.status_code == codes.found and method != "HEAD":' }],
  },
  {
    project: 'requests',
    question: 'How many redirects does a Session follow before it gives up?',
    paragraph:
      'Following redirects cannot go on forever: after a fixed number of hops the library stops and raises an error. Where is that limit defined and where is it enforced?',
    names: true,
    answers: [
      { path: 'requests/sessions.py', lines: [190, 193], text: 'if len(resp.history) >= self.max_redirects:' },
      { path: 'requests/sessions.py', lines: [430, 434], text: 'self.max_redirects = DEFAULT_REDIRECT_LIMIT' },
      { path: 'requests/models.py', lines: [79, 79], text: 'DEFAULT_REDIRECT_LIMIT = 30' },
    ],
  },
  {
    project: 'requests',
    question: 'How does requests choose the text encoding used by response.text?',
    paragraph:
      'When I read a response as a string, the library has to pick a character set: the one declared in the headers, or a guess made from the bytes when none is declared. Where is the decoded text produced?',
    names: true,
    answers: [
      { path: 'requests/models.py', lines: [919, 942], text: 'encoding = self.apparent_encoding' },
      { path: 'requests/utils.py', lines: [533, 555], text: 'return "ISO-8859-1"' },
      { path: 'requests/adapters.py', lines: [314, 315], text: 'response.encoding = get_encoding_from_headers(response.headers)' },
    ],
  },
  {
    project: 'requests',
    question: 'How is the Basic authentication header built from a username and password?',
    paragraph:
      'To log in with a user name and a password the client sends a header holding both, joined by a colon and base64-encoded. I want the function that builds that header value.',
    names: false,
    answers: [{ path: 'requests/auth.py', lines: [56, 66], text: 'b64encode(b":".join((username, password))).strip()' }],
  },
  {
    project: 'requests',
    question: 'Where does requests read proxy settings such as NO_PROXY from the environment?',
    paragraph:
      'Proxy configuration can come from environment variables, including a list of hosts that must bypass the proxy. Where does the library read those variables and decide whether a given address should skip the proxy?',
    names: true,
    answers: [
      { path: 'requests/utils.py', lines: [767, 774], text: 'no_proxy = get_proxy("no_proxy")' },
      { path: 'requests/utils.py', lines: [819, 828], text: 'return getproxies()' },
      { path: 'requests/utils.py', lines: [857, 881], text: 'environ_proxies = get_environ_proxies(url, no_proxy=no_proxy)' },
      { path: 'requests/sessions.py', lines: [756, 761], text: 'env_proxies = get_environ_proxies(url, no_proxy=no_proxy)' },
    ],
  },
  {
    project: 'requests',
    question: 'How does HTTPDigestAuth answer a 401 challenge?',
    paragraph:
      'With challenge-response authentication the server first refuses with an unauthorized status and a nonce; the client must compute a hashed response and send the request again. Where is the handler that reacts to that refusal and retries?',
    names: true,
    answers: [{ path: 'requests/auth.py', lines: [241, 284], text: 'prep.headers["Authorization"] = self.build_digest_header(' }],
  },
  {
    project: 'requests',
    question: 'How does a Session pick the transport adapter for a URL?',
    paragraph:
      'A session keeps several transport objects registered by URL prefix, and every request needs the one whose prefix matches its URL, the longest prefix first. Where is that lookup?',
    names: true,
    answers: [
      { path: 'requests/sessions.py', lines: [780, 792], text: 'if url.lower().startswith(prefix.lower()):' },
      { path: 'requests/sessions.py', lines: [799, 808], text: 'keys_to_move = [k for k in self.adapters if len(k) < len(prefix)]' },
    ],
  },
  {
    project: 'requests',
    question: 'How does passing json= to a request set the body and the Content-Type header?',
    paragraph:
      'If I hand a Python object to a request as its JSON payload instead of a raw body, the library serializes it and marks the content type accordingly. Where does preparing the request body do that?',
    names: true,
    answers: [{ path: 'requests/models.py', lines: [505, 516], text: 'body = complexjson.dumps(json, allow_nan=False)' }],
  },
  {
    project: 'requests',
    question: 'How is a (connect, read) timeout tuple passed down to urllib3?',
    paragraph:
      'A request can be given a pair of numbers: one limit for establishing the connection and one for waiting on data. Where does the transport unpack that pair into the timeout object of the underlying connection library?',
    names: false,
    answers: [{ path: 'requests/adapters.py', lines: [473, 485], text: 'timeout = TimeoutSauce(connect=connect, read=read)' }],
  },
  {
    project: 'requests',
    question: 'How are header names looked up without regard to case?',
    paragraph:
      'Header names must be looked up regardless of capitalisation while still remembering how they were first written. I want the dictionary-like class that keeps its keys lowercased for lookups.',
    names: false,
    answers: [{ path: 'requests/structures.py', lines: [46, 52], text: 'self._store[key.lower()] = (key, value)' }],
  },
  {
    project: 'requests',
    question: 'What does raise_for_status do for a 404 response?',
    paragraph:
      'After a call I want an exception when the server answered with a client or server error status, carrying a message with the code, the reason and the address. Where is that check?',
    names: true,
    answers: [{ path: 'requests/models.py', lines: [1010, 1021], text: 'raise HTTPError(http_error_msg, response=self)' }],
  },

  // cobra 1.6.1 (Debian golang-github-spf13-cobra-dev 1.6.1-1): *_test.go are tests.
  {
    project: 'cobra',
    question: 'How does cobra suggest a command when the user mistypes one?',
    paragraph:
      'When a user types a subcommand that does not exist, the tool offers close matches by edit distance or by prefix. Where are those suggestions computed?',
    names: false,
    answers: [
      { path: 'command.go', lines: [781, 799], text: 'levenshteinDistance := ld(typedName, cmd.Name(), true)' },
      { path: 'command.go', lines: [701, 716], text: String.raw`suggestionsString += "\n\nDid you mean this?\n"` },
      { path: 'cobra.go', lines: [183, 216], text: 'func ld(s, t string, ignoreCase bool) int {' },
    ],
  },
  {
    project: 'cobra',
    question: 'In what order do PersistentPreRun, PreRun, Run and PostRun run?',
    paragraph:
      'A command can have hooks that run before and after its main function, some of them inherited from its parents. Where is the method that runs them in sequence when the command executes?',
    names: true,
    answers: [{ path: 'command.go', lines: [889, 939], text: 'if p.PersistentPreRunE != nil {' }],
  },
  {
    project: 'cobra',
    question: 'How are required flags checked before a command runs?',
    paragraph:
      'Options can be marked as mandatory; if the user leaves one out, running the command must fail with an error listing the missing ones. Where is that validation done?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1076, 1097], text: 'if (requiredAnnotation[0] == "true") && !pflag.Changed {' },
      { path: 'shell_completions.go', lines: [38, 40], text: 'return flags.SetAnnotation(name, BashCompOneRequiredFlag, []string{"true"})' },
    ],
  },
  {
    project: 'cobra',
    question: 'What error does ExactArgs return when the number of arguments is wrong?',
    paragraph:
      'A command can declare that it accepts exactly a certain number of positional arguments. Find the validator that compares the count and builds the error message when it is wrong.',
    names: true,
    answers: [{ path: 'args.go', lines: [94, 101], text: 'return fmt.Errorf("accepts %d arg(s), received %d", n, len(args))' }],
  },
  {
    project: 'cobra',
    question: 'How does MarkFlagsMutuallyExclusive stop two flags of a group being used together?',
    paragraph:
      'Two options can be declared as not to be used together; if the user sets both, the command fails. Where is the check that looks at which options of such a group were set and reports the conflict?',
    names: true,
    answers: [
      { path: 'flag_groups.go', lines: [145, 164], text: 'if len(set) == 0 || len(set) == 1 {' },
      { path: 'flag_groups.go', lines: [48, 60], text: 'func (c *Command) MarkFlagsMutuallyExclusive(flagNames ...string) {' },
    ],
  },
  {
    project: 'cobra',
    question: 'Where is the default help command created?',
    paragraph:
      'Programs get a built-in subcommand that prints the help of another subcommand without the developer adding it. Where is it created and attached to the program?',
    names: false,
    answers: [{ path: 'command.go', lines: [1158, 1204], text: 'Use:   "help [command]",' }],
  },
  {
    project: 'cobra',
    question: "How do a parent command's persistent flags reach its subcommands?",
    paragraph:
      "Options declared on a parent as inherited should be accepted by all of its children. Where are the parent's inherited options collected and merged into a child's option set?",
    names: false,
    answers: [{ path: 'command.go', lines: [1774, 1799], text: 'c.parentsPflags.AddFlagSet(parent.PersistentFlags())' }],
  },
  {
    project: 'cobra',
    question: 'How is the --version flag added and what does it print?',
    paragraph:
      'When a program sets a version string, an option to print it appears automatically. Where is that option registered, and where is the version text written out?',
    names: true,
    answers: [
      { path: 'command.go', lines: [1133, 1153], text: 'c.Flags().BoolP("version", "v", false, usage)' },
      { path: 'command.go', lines: [857, 869], text: 'err := tmpl(c.OutOrStdout(), c.VersionTemplate(), c)' },
      { path: 'command.go', lines: [586, 596], text: 'func (c *Command) VersionTemplate() string {' },
    ],
  },
  {
    project: 'cobra',
    question: 'How does Execute find which subcommand to run from the command-line arguments?',
    paragraph:
      'Given the raw words of the command line, the framework has to walk down the tree of commands, skipping option values, to find which one to run and which arguments remain. Where is that search?',
    names: true,
    answers: [
      { path: 'command.go', lines: [677, 699], text: 'cmd := c.findNext(nextSubCmd)' },
      { path: 'command.go', lines: [718, 735], text: 'if commandNameMatches(cmd.Name(), next) || cmd.HasAlias(next) {' },
      { path: 'command.go', lines: [1015, 1020], text: 'cmd, flags, err = c.Find(args)' },
    ],
  },
  {
    project: 'cobra',
    question: 'What happens when a root command with subcommands is given an unknown argument?',
    paragraph:
      'If the top-level program has children and the user passes a word that matches none of them, it should fail with an unknown command message instead of running. Where does that happen?',
    names: false,
    answers: [
      { path: 'args.go', lines: [28, 39], text: 'return fmt.Errorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), cmd.findSuggestions(args[0]))' },
    ],
  },
  {
    project: 'cobra',
    question: 'How can command names be matched without regard to case?',
    paragraph:
      'There is a global switch that lets users type subcommand names in any mix of upper and lower case. Where are names compared taking that switch into account?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1804, 1810], text: 'return strings.EqualFold(s, t)' },
      { path: 'cobra.go', lines: [60, 61], text: 'var EnableCaseInsensitive = defaultCaseInsensitive' },
    ],
  },
  {
    project: 'cobra',
    question: 'How does cobra write man pages for a command and its subcommands?',
    paragraph:
      'The library can generate manual pages in troff format for a program and, recursively, for every child command, writing one file each. Where is that generation?',
    names: false,
    answers: [
      { path: 'doc/man_docs.go', lines: [48, 80], text: 'basename := strings.ReplaceAll(cmd.CommandPath(), " ", separator)' },
      { path: 'doc/man_docs.go', lines: [105, 116], text: '_, err := w.Write(md2man.Render(b))' },
    ],
  },
  {
    project: 'cobra',
    question: 'How can I stop the error and usage messages from being printed when a command fails?',
    paragraph:
      'When a command returns an error, the framework prints the error and the usage text by default. Which settings suppress those two outputs, and where are they checked?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1053, 1063], text: 'if !cmd.SilenceErrors && !c.SilenceErrors {' },
      { path: 'command.go', lines: [1026, 1029], text: 'if !c.SilenceErrors {' },
    ],
  },
  {
    project: 'cobra',
    question: 'Where is the default completion command added to a program?',
    paragraph:
      'Programs get a subcommand that generates shell completion scripts for bash, zsh, fish and PowerShell. Where is that subcommand built and added?',
    names: false,
    answers: [{ path: 'completions.go', lines: [653, 678], text: 'Short: "Generate the autocompletion script for the specified shell",' }],
  },

  // ureq 2.6.2 (Debian librust-ureq-dev 2.6.2-3): src/test/ and tests/ are tests, examples/ examples.
  {
    project: 'ureq',
    question: 'How does ureq follow redirects, and when does it switch the method to GET?',
    paragraph:
      'When a server answers with a redirect, the client follows the new location; for some statuses it changes the method to a plain retrieval and drops the body. Where is that loop?',
    names: false,
    answers: [{ path: 'src/unit.rs', lines: [187, 202], text: '301 | 302 | 303 => match &method[..] {' }],
  },
  {
    project: 'ureq',
    question: 'What is the default maximum number of redirects, and what error is returned when it is reached?',
    paragraph: 'There is a cap on how many redirects are followed. What is the default number, and which error comes back when the cap is reached?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [166, 171], text: 'return Err(ErrorKind::TooManyRedirects.msg(format!(' },
      { path: 'src/agent.rs', lines: [261, 261], text: 'redirects: 5,' },
    ],
  },
  {
    project: 'ureq',
    question: 'When is the Authorization header kept on a redirect?',
    paragraph:
      'A credentials header should survive a redirect only under certain conditions; otherwise it is stripped from the next request. Where is that decided?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [374, 398], text: 'host == prev_host && same_scheme_or_more_secure' },
      { path: 'src/unit.rs', lines: [217, 221], text: '!h.is_name("content-length") && (!h.is_name("authorization") || keep_auth_header)' },
    ],
  },
  {
    project: 'ureq',
    question: 'How are idle connections reused from the connection pool?',
    paragraph:
      'Connections to the same host are kept after a response has been read completely and reused later instead of opening a new socket. Where does the pool hand out a stored connection for a host?',
    names: false,
    answers: [
      { path: 'src/pool.rs', lines: [96, 124], text: 'let stream = streams.pop_back();' },
      { path: 'src/pool.rs', lines: [126, 159], text: 'streams.push_back(stream);' },
      { path: 'src/unit.rs', lines: [351, 364], text: 'while let Some(stream) = pool.try_get_connection(&unit.url, proxy.clone()) {' },
    ],
  },
  {
    project: 'ureq',
    question: 'Which requests are retried when a pooled connection turns out to have been closed by the server?',
    paragraph:
      'A connection taken from the pool may have been closed by the server in the meantime; for safe requests the client quietly tries again on a fresh connection. Where is the decision to retry made?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [130, 149], text: '"DELETE" | "GET" | "HEAD" | "OPTIONS" | "PUT" | "TRACE" => true,' },
      { path: 'src/unit.rs', lines: [295, 301], text: 'Err(err) if err.connection_closed() && retryable && is_recycled => {' },
    ],
  },
  {
    project: 'ureq',
    question: 'How does the overall request timeout become a deadline on the socket?',
    paragraph:
      'A single time limit for the whole request has to be turned into a point in time and applied to reading from and writing to the socket. Where is that done?',
    names: false,
    answers: [
      { path: 'src/request.rs', lines: [123, 137], text: 'let deadline = match self.timeout.or(self.agent.config.timeout) {' },
      { path: 'src/stream.rs', lines: [77, 96], text: 'socket.set_read_timeout(Some(timeout))?;' },
      { path: 'src/stream.rs', lines: [414, 424], text: 'stream.set_read_timeout(Some(time_until_deadline(deadline)?))?;' },
    ],
  },
  {
    project: 'ureq',
    question: 'How does Proxy::new parse a proxy string like socks5://user:pass@host:port?',
    paragraph:
      'Given a proxy address written with a protocol, an optional user and password, a host and a port, the library splits it into its parts. Where is that parsing?',
    names: true,
    answers: [{ path: 'src/proxy.rs', lines: [81, 130], text: 'Some("socks5") => Proto::SOCKS5,' }],
  },
  {
    project: 'ureq',
    question: 'How does ureq open a tunnel through an HTTP proxy with CONNECT?',
    paragraph:
      "To reach a secure site through a web proxy, the client first asks the proxy to open a tunnel to the target host and checks the proxy's reply. Where is that request written and its answer checked?",
    names: false,
    answers: [
      { path: 'src/proxy.rs', lines: [132, 161], text: 'pub(crate) fn connect<S: AsRef<str>>(&self, host: S, port: u16) -> String {' },
      { path: 'src/stream.rs', lines: [426, 443], text: 'write!(stream, "{}", proxy.connect(hostname, port)).unwrap();' },
    ],
  },
  {
    project: 'ureq',
    question: 'Why does call() return an Err for a 404 response?',
    paragraph:
      'A request gives back an error value instead of a response when the server answers with a client or server error status. Where is that conversion done?',
    names: true,
    answers: [{ path: 'src/request.rs', lines: [169, 173], text: 'Err(Error::Status(response.status(), response))' }],
  },
  {
    project: 'ureq',
    question: 'What user agent and connect timeout does a new Agent use by default?',
    paragraph:
      'A newly built client comes with some default settings, such as the identifying string it sends and how long it waits to connect. Where are those defaults set?',
    names: true,
    answers: [{ path: 'src/agent.rs', lines: [251, 273], text: 'user_agent: format!("ureq/{}", env!("CARGO_PKG_VERSION")),' }],
  },
  {
    project: 'ureq',
    question: 'How are middleware chained around a request?',
    paragraph: 'Users can register functions that wrap every request, each one deciding whether to pass it on to the next. Where is this chain run?',
    names: false,
    answers: [
      { path: 'src/middleware.rs', lines: [148, 157], text: 'step.handle(request, self)' },
      { path: 'src/request.rs', lines: [153, 167], text: 'let next = MiddlewareNext { chain, request_fn };' },
    ],
  },
  {
    project: 'ureq',
    question: 'How does ureq work out where the response body ends?',
    paragraph:
      'To read a response body the client has to know where it ends: from a length header, from chunked encoding, or by reading until the connection closes; some statuses have no body at all. Where is that decided?',
    names: false,
    answers: [{ path: 'src/response.rs', lines: [275, 320], text: 'let use_chunked = !is_http10 && !has_no_body && is_chunked;' }],
  },
  {
    project: 'ureq',
    question: 'Which cookies from Set-Cookie headers are stored, and which are ignored?',
    paragraph:
      "Cookies received from a server go into a jar, but some are rejected, for instance those set for a domain other than the request's. Where are incoming cookies filtered and saved?",
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [535, 565], text: 'if is_cookie_rfc_compliant(&c) {' },
      { path: 'src/unit.rs', lines: [607, 625], text: 'let valid_name = name.iter().all(is_valid_name);' },
    ],
  },
  {
    project: 'ureq',
    question: 'How large a body can into_string read, and how is its charset chosen?',
    paragraph:
      'Reading a whole response into a string stops beyond a size limit, and the bytes are decoded with the character set announced in the content type. Where is that?',
    names: true,
    answers: [
      { path: 'src/response.rs', lines: [421, 447], text: 'if buf.len() > INTO_STRING_LIMIT {' },
      { path: 'src/response.rs', lines: [33, 33], text: 'const INTO_STRING_LIMIT: usize = 10 * 1_024 * 1_024;' },
    ],
  },
  // cordova-android 12.0.1 (npm): framework/src/ is the Java implementation; bin/ and lib/ its JavaScript tooling.
  {
    project: 'cordova',
    question: 'How is an origin from the access configuration parsed into an allow-list entry?',
    paragraph:
      'The app configuration lists which origins it may reach, with wildcards for the scheme, the host, the port and the path. I am looking for the code that takes one such origin string, splits it into its parts with a pattern and adds entries to the list of allowed addresses.',
    names: false,
    answers: [{ path: 'framework/src/org/apache/cordova/AllowList.java', lines: [114, 145], text: 'Pattern parts = Pattern.compile(' }],
  },
  {
    project: 'cordova',
    question: 'How does the plugin manager warn when a plugin call blocks the main thread for too long?',
    paragraph:
      "When JavaScript calls into a native plugin, the framework runs the plugin's action and measures how long it took. If it took too long it logs a warning telling the author to use a background thread, and unknown actions or bad JSON produce error results. Where is that dispatch?",
    names: false,
    answers: [{ path: 'framework/src/org/apache/cordova/PluginManager.java', lines: [137, 164], text: 'if (duration > SLOW_EXEC_WARNING_THRESHOLD) {' }],
  },
  {
    project: 'cordova',
    question: 'How are data: URIs decoded, base64 ones included?',
    paragraph:
      'Some addresses carry their content inline after a comma, with a media type and an optional marker saying the payload is base64. Find the code that splits such an address, decodes the payload and returns it as a readable stream with its type and length.',
    names: false,
    answers: [
      { path: 'framework/src/org/apache/cordova/CordovaResourceApi.java', lines: [426, 456], text: 'data = Base64.decode(dataPartAsString, Base64.DEFAULT);' },
    ],
  },
  {
    project: 'cordova',
    question: 'How does the bridge pack queued native-to-JavaScript messages into one response?',
    paragraph:
      'Messages waiting to go from the native side to the web page are sent in batches. The code takes messages off the front of the queue until a size cutoff would be passed, writes them into one string with their lengths, marks that more are pending, and returns nothing when the queue is empty.',
    names: false,
    answers: [
      {
        path: 'framework/src/org/apache/cordova/NativeToJsMessageQueue.java',
        lines: [134, 169],
        text: 'totalPayloadLen + messageSize > COMBINED_RESPONSE_CUTOFF',
      },
    ],
  },
  {
    project: 'cordova',
    question: 'Where is a plugin created the first time its service is requested?',
    paragraph:
      'Plugins are registered by service name but only constructed when something first asks for them. I need the lookup that returns an existing instance, or builds one from its registered class, initialises it and keeps it for the next request.',
    names: false,
    answers: [{ path: 'framework/src/org/apache/cordova/PluginManager.java', lines: [175, 192], text: 'ret = instantiatePlugin(pe.pluginClass);' }],
  },
  {
    project: 'cordova',
    question: 'How is a URL checked against the allow list?',
    paragraph:
      'Before loading an address the app checks it against the configured patterns; with no list at all everything is permitted. Where is the function that parses the address and tries each pattern in turn?',
    names: false,
    answers: [{ path: 'framework/src/org/apache/cordova/AllowList.java', lines: [154, 168], text: 'if (p.matches(parsedUri)) {' }],
  },
  {
    project: 'cordova',
    question: 'What happens when a plugin sends a second result for the same callback?',
    paragraph:
      'A callback handed to native code may be answered once, unless it is asked to stay open. If an answer comes after the callback is already finished, the framework logs a warning and drops it; otherwise it forwards the result to the web view.',
    names: false,
    answers: [{ path: 'framework/src/org/apache/cordova/CallbackContext.java', lines: [52, 62], text: 'Attempted to send a second callback for ID: ' }],
  },
  {
    project: 'cordova',
    question: "How are the scheme and hostname of the app's start page chosen from its preferences?",
    paragraph:
      'The start page is served from a custom origin whose protocol and host come from the configuration, falling back to secure defaults when the protocol given is not valid, or from the local asset folder in an insecure file mode. Where is that prefix built?',
    names: false,
    answers: [
      {
        path: 'framework/src/org/apache/cordova/ConfigXmlParser.java',
        lines: [173, 190],
        text: 'String hostname = prefs.getString("hostname", DEFAULT_HOSTNAME).toLowerCase();',
      },
      { path: 'framework/src/org/apache/cordova/PluginManager.java', lines: [385, 393], text: 'return scheme + "://" + hostname + \'/\';' },
    ],
  },
  // tree-sitter 0.21.1 (npm): the C library under vendor/tree-sitter/lib is the repository (src/ and include/).
  {
    project: 'tree-sitter',
    question: 'How does the parser stop when its timeout passes or it is cancelled?',
    paragraph:
      'Parsing a large document can be bounded in time or cancelled from another thread. Every so many steps the parser looks at an atomic flag and compares the clock with a deadline, and if either says stop it releases what it holds and gives up. Where is that check?',
    names: false,
    answers: [{ path: 'src/parser.c', lines: [1560, 1574], text: 'clock_is_gt(clock_now(), self->end_clock)' }],
  },
  {
    project: 'tree-sitter',
    question: "How does the parser check that a language's version is compatible?",
    paragraph:
      'A grammar compiled for another release of the runtime may not be loadable. When a grammar is assigned to a parser, the runtime resets the parser and refuses grammars whose version number is outside the supported range, and starts a wasm store for wasm grammars.',
    names: false,
    answers: [{ path: 'src/parser.c', lines: [1892, 1913], text: 'language->version > TREE_SITTER_LANGUAGE_VERSION ||' }],
  },
  {
    project: 'tree-sitter',
    question: 'How are the included ranges given to the lexer validated?',
    paragraph:
      'A document may be parsed only in some regions, given as a list of byte ranges. Those ranges must be in order and must not overlap; an empty list means the whole document. Where are they checked and stored?',
    names: false,
    answers: [{ path: 'src/lexer.c', lines: [386, 413], text: 'range->start_byte < previous_byte ||' }],
  },
  {
    project: 'tree-sitter',
    question: 'How does the lexer work out the current column?',
    paragraph:
      'Some external scanners need to know how far into the current line they are. The lexer finds out by going back to the start of the line and advancing one character at a time, counting until it reaches the current byte again.',
    names: false,
    answers: [{ path: 'src/lexer.c', lines: [248, 272], text: 'self->did_get_column = true;' }],
  },
  {
    project: 'tree-sitter',
    question: "How are a tree's included ranges shifted when the source text is edited?",
    paragraph:
      'After the user changes the text, positions kept in the syntax tree have to move: ranges after the change shift by the difference in size, ranges overlapping it are clamped to where it starts, and the root node is adjusted too.',
    names: false,
    answers: [{ path: 'src/tree.c', lines: [57, 95], text: 'range->end_byte = edit->new_end_byte + (range->end_byte - edit->old_end_byte);' }],
  },
  {
    project: 'tree-sitter',
    question: 'How does ts_node_child_by_field_id find the child of a node for a field?',
    paragraph:
      "Grammars can label the children of a node with field names such as the body or the condition. Given a node and such a label's number, I need the code that looks through the grammar's field mapping for the node's production and returns the matching child, looking inside hidden nodes too.",
    names: true,
    answers: [{ path: 'src/node.c', lines: [545, 615], text: 'ts_language_field_map(' }],
  },
  {
    project: 'tree-sitter',
    question: 'How is a syntax node turned into an S-expression string?',
    paragraph:
      'For debugging, a syntax node can be printed as nested parentheses with node types and field names. Where is the function that measures the size needed first, allocates a buffer and then writes the text into it?',
    names: false,
    answers: [
      { path: 'src/subtree.c', lines: [954, 975], text: 'size_t size = ts_subtree__write_to_string(' },
      { path: 'src/node.c', lines: [441, 450], text: 'return ts_subtree_string(' },
    ],
  },
  {
    project: 'tree-sitter',
    question: 'How does a tree cursor move up to its parent?',
    paragraph:
      'A cursor walking a syntax tree keeps a stack of entries. Moving up means dropping entries until a visible one is on top, skipping hidden nodes, and failing at the root.',
    names: false,
    answers: [{ path: 'src/tree_cursor.c', lines: [407, 416], text: 'if (ts_tree_cursor_is_entry_visible(self, i)) {' }],
  },
];
