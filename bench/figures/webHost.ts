/**
 * Activation in VS Code for the Web's web-worker extension host (the web bundle, fetch), beside
 * the same measurement in a Node extension host (code-server, the desktop bundles): the time in
 * activate() the extension logs ("Activated in … ms"), read from its output channel in each
 * window, signed out, after the Conversations view opened it.
 */
import { VSCodeUi } from '../../test/ui/vscodeUi';
import type { WorkbenchPage } from '../../test/ui/workbenchPage';
import { VSCodeWeb } from '../../test/web/vscodeWeb';
import { spread, type BenchContext, type Figure, type Row } from '../report';
import { summarize } from '../stats';

/** What activate() took in the window's extension host, as the extension's log says. */
async function activationMs(window: WorkbenchPage): Promise<number> {
  await window.runCommand('Deep Search: Focus on Conversations View');
  let logged: RegExpExecArray | null = null;
  let text = '';
  try {
    await window.eventually(async () => {
      text = await window.outputChannelText('Deep Search');
      // The editor shows spaces as no-break spaces.
      logged = /Activated\s+in\s+([\d.]+)\s+ms\./.exec(text);
      return logged !== null;
    }, 'the extension to log its activation');
  } catch (error) {
    await window.screenshot('bench-activation-not-logged');
    throw new Error(`${String(error)}; the channel said: ${text.slice(0, 500)}`);
  }
  return Number((logged as RegExpExecArray | null)?.[1]);
}

async function run(context: BenchContext): Promise<Row[]> {
  const count = context.quick ? 1 : 3;
  const web: number[] = [];
  const node: number[] = [];
  for (let index = 0; index < count; index++) {
    context.log(`VS Code for the Web, run ${index + 1} of ${count}…`);
    const inBrowser = await VSCodeWeb.launch();
    try {
      web.push(await activationMs(inBrowser));
    } finally {
      await inBrowser.close();
    }
    context.log(`code-server (Node extension host), run ${index + 1} of ${count}…`);
    const onNode = await VSCodeUi.launch({ paceMs: 100, signedIn: false });
    try {
      node.push(await activationMs(onNode));
    } finally {
      await onNode.close();
    }
  }
  const inWorker = summarize(web);
  const inNode = summarize(node);
  return [
    {
      figure: 'activation in the web-worker extension host (VS Code for the Web): time in activate()',
      measured: spread(inWorker),
      baseline: `Node extension host (code-server): ${spread(inNode)}`,
      goal: '≤ 2 × the Node host (one bundle, loaded whole, where the desktop loads its network code later)',
      met: inWorker.median <= 2 * inNode.median,
      data: { web, node },
    },
  ];
}

export const webHostFigure: Figure = { id: 'web-host', title: 'Activation in VS Code for the Web', run };
