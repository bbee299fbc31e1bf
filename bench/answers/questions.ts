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

export type Language = 'JavaScript' | 'Python' | 'Go' | 'Rust';

/** Where a project's files come from. */
export type ProjectSource =
  /** `npm pack <name>@<version>`: the package's own files (its `package/` folder), none of its dependencies. */
  | { registry: 'npm'; name: string; version: string }
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
];

export const QUESTIONS: readonly BenchQuestion[] = [
  // express 4.21.2 (npm): lib/ is the implementation; History.md and Readme.md are docs.
  {
    project: 'express',
    question: 'How does res.cookie sign a cookie value?',
    names: true,
    answers: [{ path: 'lib/response.js', lines: [875, 877], text: "val = 's:' + sign(val, secret);" }],
  },
  {
    project: 'express',
    question: 'When does Express answer 304 Not Modified instead of sending the body?',
    names: false,
    answers: [
      { path: 'lib/response.js', lines: [209, 218], text: 'if (req.fresh) this.statusCode = 304;' },
      { path: 'lib/request.js', lines: [467, 484], text: 'return fresh(this.headers, {' },
    ],
  },
  {
    project: 'express',
    question: 'How does app.listen start the HTTP server?',
    names: true,
    answers: [{ path: 'lib/application.js', lines: [633, 636], text: 'var server = http.createServer(this);' }],
  },
  {
    project: 'express',
    question: "How is the client's IP address worked out when the app runs behind a reverse proxy?",
    names: false,
    answers: [
      { path: 'lib/request.js', lines: [349, 352], text: 'return proxyaddr(this, trust);' },
      { path: 'lib/utils.js', lines: [215, 235], text: 'return proxyaddr.compile(val || []);' },
    ],
  },
  {
    project: 'express',
    question: 'What does res.redirect put in the response body?',
    names: true,
    answers: [{ path: 'lib/response.js', lines: [965, 979], text: "body = statuses.message[status] + '. Redirecting to ' + address" }],
  },
  {
    project: 'express',
    question: 'Which settings does a new application get by default?',
    names: false,
    answers: [
      { path: 'lib/application.js', lines: [80, 86], text: "this.set('etag', 'weak');" },
      { path: 'lib/application.js', lines: [120, 127], text: "this.set('jsonp callback name', 'callback');" },
    ],
  },
  {
    project: 'express',
    question: 'How does res.render find the template file on disk?',
    names: true,
    answers: [
      { path: 'lib/view.js', lines: [104, 123], text: 'path = this.resolve(dir, file);' },
      { path: 'lib/view.js', lines: [146, 164], text: "path = join(dir, basename(file, ext), 'index' + ext);" },
    ],
  },
  {
    project: 'express',
    question: "How are <, > and & escaped in JSON responses when the 'json escape' setting is on?",
    names: true,
    answers: [
      { path: 'lib/response.js', lines: [1162, 1176], text: 'json = json.replace(/[<>&]/g, function (c) {' },
      { path: 'lib/response.js', lines: [266, 271], text: "var escape = app.get('json escape')" },
    ],
  },
  {
    project: 'express',
    question: 'What happens when a middleware calls next(err) with an error?',
    names: true,
    answers: [
      { path: 'lib/router/index.js', lines: [325, 329], text: 'layer.handle_error(layerError, req, res, next);' },
      { path: 'lib/router/layer.js', lines: [62, 75], text: 'if (fn.length !== 4) {' },
    ],
  },
  {
    project: 'express',
    question: 'How is the query string parsed into req.query?',
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
    names: false,
    answers: [
      { path: 'lib/middleware/init.js', lines: [30, 30], text: "if (app.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'Express');" },
      { path: 'lib/application.js', lines: [81, 81], text: "this.enable('x-powered-by');" },
    ],
  },
  {
    project: 'express',
    question: 'What happens when a route parameter in the URL has invalid percent-encoding?',
    names: false,
    answers: [{ path: 'lib/router/layer.js', lines: [166, 181], text: 'err.status = err.statusCode = 400;' }],
  },
  {
    project: 'express',
    question: 'How is the JSONP callback name sanitized before it is written into the response?',
    names: false,
    answers: [{ path: 'lib/response.js', lines: [323, 349], text: String.raw`callback = callback.replace(/[^\[\]\w$.]/g, '');` }],
  },
  {
    project: 'express',
    question: 'How does res.format pick the response type, and what happens when the client accepts none of them?',
    names: true,
    answers: [{ path: 'lib/response.js', lines: [684, 709], text: 'next(createError(406, {' }],
  },

  // requests 2.28.1 (Debian python3-requests 2.28.1+dfsg-1): the package requests/.
  {
    project: 'requests',
    question: 'How does the adapter retry failed connections?',
    names: false,
    answers: [
      { path: 'requests/adapters.py', lines: [143, 146], text: 'self.max_retries = Retry(0, read=False)' },
      { path: 'requests/adapters.py', lines: [487, 500], text: 'retries=self.max_retries,' },
    ],
  },
  {
    project: 'requests',
    question: 'Why is the Authorization header removed when a redirect goes to another host?',
    names: false,
    answers: [
      { path: 'requests/sessions.py', lines: [283, 301], text: 'del headers["Authorization"]' },
      { path: 'requests/sessions.py', lines: [127, 157], text: 'if old_parsed.hostname != new_parsed.hostname:' },
    ],
  },
  {
    project: 'requests',
    question: 'What happens to a POST request when the server answers with a 302 or 303 redirect?',
    names: false,
    answers: [{ path: 'requests/sessions.py', lines: [332, 352], text: 'if response.status_code == codes.found and method != "HEAD":' }],
  },
  {
    project: 'requests',
    question: 'How many redirects does a Session follow before it gives up?',
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
    names: false,
    answers: [{ path: 'requests/auth.py', lines: [56, 66], text: 'b64encode(b":".join((username, password))).strip()' }],
  },
  {
    project: 'requests',
    question: 'Where does requests read proxy settings such as NO_PROXY from the environment?',
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
    names: true,
    answers: [{ path: 'requests/auth.py', lines: [241, 284], text: 'prep.headers["Authorization"] = self.build_digest_header(' }],
  },
  {
    project: 'requests',
    question: 'How does a Session pick the transport adapter for a URL?',
    names: true,
    answers: [
      { path: 'requests/sessions.py', lines: [780, 792], text: 'if url.lower().startswith(prefix.lower()):' },
      { path: 'requests/sessions.py', lines: [799, 808], text: 'keys_to_move = [k for k in self.adapters if len(k) < len(prefix)]' },
    ],
  },
  {
    project: 'requests',
    question: 'How does passing json= to a request set the body and the Content-Type header?',
    names: true,
    answers: [{ path: 'requests/models.py', lines: [505, 516], text: 'body = complexjson.dumps(json, allow_nan=False)' }],
  },
  {
    project: 'requests',
    question: 'How is a (connect, read) timeout tuple passed down to urllib3?',
    names: false,
    answers: [{ path: 'requests/adapters.py', lines: [473, 485], text: 'timeout = TimeoutSauce(connect=connect, read=read)' }],
  },
  {
    project: 'requests',
    question: 'How are header names looked up without regard to case?',
    names: false,
    answers: [{ path: 'requests/structures.py', lines: [46, 52], text: 'self._store[key.lower()] = (key, value)' }],
  },
  {
    project: 'requests',
    question: 'What does raise_for_status do for a 404 response?',
    names: true,
    answers: [{ path: 'requests/models.py', lines: [1010, 1021], text: 'raise HTTPError(http_error_msg, response=self)' }],
  },

  // cobra 1.6.1 (Debian golang-github-spf13-cobra-dev 1.6.1-1): *_test.go are tests.
  {
    project: 'cobra',
    question: 'How does cobra suggest a command when the user mistypes one?',
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
    names: true,
    answers: [{ path: 'command.go', lines: [889, 939], text: 'if p.PersistentPreRunE != nil {' }],
  },
  {
    project: 'cobra',
    question: 'How are required flags checked before a command runs?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1076, 1097], text: 'if (requiredAnnotation[0] == "true") && !pflag.Changed {' },
      { path: 'shell_completions.go', lines: [38, 40], text: 'return flags.SetAnnotation(name, BashCompOneRequiredFlag, []string{"true"})' },
    ],
  },
  {
    project: 'cobra',
    question: 'What error does ExactArgs return when the number of arguments is wrong?',
    names: true,
    answers: [{ path: 'args.go', lines: [94, 101], text: 'return fmt.Errorf("accepts %d arg(s), received %d", n, len(args))' }],
  },
  {
    project: 'cobra',
    question: 'How does MarkFlagsMutuallyExclusive stop two flags of a group being used together?',
    names: true,
    answers: [
      { path: 'flag_groups.go', lines: [145, 164], text: 'if len(set) == 0 || len(set) == 1 {' },
      { path: 'flag_groups.go', lines: [48, 60], text: 'func (c *Command) MarkFlagsMutuallyExclusive(flagNames ...string) {' },
    ],
  },
  {
    project: 'cobra',
    question: 'Where is the default help command created?',
    names: false,
    answers: [{ path: 'command.go', lines: [1158, 1204], text: 'Use:   "help [command]",' }],
  },
  {
    project: 'cobra',
    question: "How do a parent command's persistent flags reach its subcommands?",
    names: false,
    answers: [{ path: 'command.go', lines: [1774, 1799], text: 'c.parentsPflags.AddFlagSet(parent.PersistentFlags())' }],
  },
  {
    project: 'cobra',
    question: 'How is the --version flag added and what does it print?',
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
    names: false,
    answers: [
      { path: 'args.go', lines: [28, 39], text: 'return fmt.Errorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), cmd.findSuggestions(args[0]))' },
    ],
  },
  {
    project: 'cobra',
    question: 'How can command names be matched without regard to case?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1804, 1810], text: 'return strings.EqualFold(s, t)' },
      { path: 'cobra.go', lines: [60, 61], text: 'var EnableCaseInsensitive = defaultCaseInsensitive' },
    ],
  },
  {
    project: 'cobra',
    question: 'How does cobra write man pages for a command and its subcommands?',
    names: false,
    answers: [
      { path: 'doc/man_docs.go', lines: [48, 80], text: 'basename := strings.ReplaceAll(cmd.CommandPath(), " ", separator)' },
      { path: 'doc/man_docs.go', lines: [105, 116], text: '_, err := w.Write(md2man.Render(b))' },
    ],
  },
  {
    project: 'cobra',
    question: 'How can I stop the error and usage messages from being printed when a command fails?',
    names: false,
    answers: [
      { path: 'command.go', lines: [1053, 1063], text: 'if !cmd.SilenceErrors && !c.SilenceErrors {' },
      { path: 'command.go', lines: [1026, 1029], text: 'if !c.SilenceErrors {' },
    ],
  },
  {
    project: 'cobra',
    question: 'Where is the default completion command added to a program?',
    names: false,
    answers: [{ path: 'completions.go', lines: [653, 678], text: 'Short: "Generate the autocompletion script for the specified shell",' }],
  },

  // ureq 2.6.2 (Debian librust-ureq-dev 2.6.2-3): src/test/ and tests/ are tests, examples/ examples.
  {
    project: 'ureq',
    question: 'How does ureq follow redirects, and when does it switch the method to GET?',
    names: false,
    answers: [{ path: 'src/unit.rs', lines: [187, 202], text: '301 | 302 | 303 => match &method[..] {' }],
  },
  {
    project: 'ureq',
    question: 'What is the default maximum number of redirects, and what error is returned when it is reached?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [166, 171], text: 'return Err(ErrorKind::TooManyRedirects.msg(format!(' },
      { path: 'src/agent.rs', lines: [261, 261], text: 'redirects: 5,' },
    ],
  },
  {
    project: 'ureq',
    question: 'When is the Authorization header kept on a redirect?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [374, 398], text: 'host == prev_host && same_scheme_or_more_secure' },
      { path: 'src/unit.rs', lines: [217, 221], text: '!h.is_name("content-length") && (!h.is_name("authorization") || keep_auth_header)' },
    ],
  },
  {
    project: 'ureq',
    question: 'How are idle connections reused from the connection pool?',
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
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [130, 149], text: '"DELETE" | "GET" | "HEAD" | "OPTIONS" | "PUT" | "TRACE" => true,' },
      { path: 'src/unit.rs', lines: [295, 301], text: 'Err(err) if err.connection_closed() && retryable && is_recycled => {' },
    ],
  },
  {
    project: 'ureq',
    question: 'How does the overall request timeout become a deadline on the socket?',
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
    names: true,
    answers: [{ path: 'src/proxy.rs', lines: [81, 130], text: 'Some("socks5") => Proto::SOCKS5,' }],
  },
  {
    project: 'ureq',
    question: 'How does ureq open a tunnel through an HTTP proxy with CONNECT?',
    names: false,
    answers: [
      { path: 'src/proxy.rs', lines: [132, 161], text: 'pub(crate) fn connect<S: AsRef<str>>(&self, host: S, port: u16) -> String {' },
      { path: 'src/stream.rs', lines: [426, 443], text: 'write!(stream, "{}", proxy.connect(hostname, port)).unwrap();' },
    ],
  },
  {
    project: 'ureq',
    question: 'Why does call() return an Err for a 404 response?',
    names: true,
    answers: [{ path: 'src/request.rs', lines: [169, 173], text: 'Err(Error::Status(response.status(), response))' }],
  },
  {
    project: 'ureq',
    question: 'What user agent and connect timeout does a new Agent use by default?',
    names: true,
    answers: [{ path: 'src/agent.rs', lines: [251, 273], text: 'user_agent: format!("ureq/{}", env!("CARGO_PKG_VERSION")),' }],
  },
  {
    project: 'ureq',
    question: 'How are middleware chained around a request?',
    names: false,
    answers: [
      { path: 'src/middleware.rs', lines: [148, 157], text: 'step.handle(request, self)' },
      { path: 'src/request.rs', lines: [153, 167], text: 'let next = MiddlewareNext { chain, request_fn };' },
    ],
  },
  {
    project: 'ureq',
    question: 'How does ureq work out where the response body ends?',
    names: false,
    answers: [{ path: 'src/response.rs', lines: [275, 320], text: 'let use_chunked = !is_http10 && !has_no_body && is_chunked;' }],
  },
  {
    project: 'ureq',
    question: 'Which cookies from Set-Cookie headers are stored, and which are ignored?',
    names: false,
    answers: [
      { path: 'src/unit.rs', lines: [535, 565], text: 'if is_cookie_rfc_compliant(&c) {' },
      { path: 'src/unit.rs', lines: [607, 625], text: 'let valid_name = name.iter().all(is_valid_name);' },
    ],
  },
  {
    project: 'ureq',
    question: 'How large a body can into_string read, and how is its charset chosen?',
    names: true,
    answers: [
      { path: 'src/response.rs', lines: [421, 447], text: 'if buf.len() > INTO_STRING_LIMIT {' },
      { path: 'src/response.rs', lines: [33, 33], text: 'const INTO_STRING_LIMIT: usize = 10 * 1_024 * 1_024;' },
    ],
  },
];
