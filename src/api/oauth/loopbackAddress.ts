/** Where the loopback listener (loopbackRedirect.ts, Node only) takes a browser sign-in's answer. */
export const LOOPBACK_CALLBACK_PATH = '/callback';
/** What an administrator registers: instances match a loopback redirect on any port. */
export const LOOPBACK_REDIRECT_URI = `http://127.0.0.1${LOOPBACK_CALLBACK_PATH}`;
