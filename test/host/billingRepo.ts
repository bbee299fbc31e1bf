/**
 * The second repository of the host tests: the engines serve it, the workspace does not hold it, and
 * the workspace's `src/checkout.ts` calls its `formatPrice` (navigation across repositories).
 */

/** The workspace's own file that uses a function of the billing repository. */
export const CHECKOUT_TS = [
  "import { formatPrice } from '@acme/billing';",
  '',
  'export function checkoutTotal(cents: number): string {',
  '  return formatPrice(cents);',
  '}',
  '',
].join('\n');

export const BILLING_NAME = 'github.com/acme/billing';
export const BILLING_FILES: Readonly<Record<string, string>> = {
  'src/price.ts': [
    '/** Prices are kept in cents. */',
    '',
    'export function formatPrice(cents: number): string {',
    '  return `$${(cents / 100).toFixed(2)}`;',
    '}',
    '',
  ].join('\n'),
  'src/invoice.ts': [
    "import { formatPrice } from './price';",
    '',
    'export function invoiceLine(label: string, cents: number): string {',
    '  return `${label}: ${formatPrice(cents)}`;',
    '}',
    '',
  ].join('\n'),
  'README.md': '# Billing\n\nformatPrice turns cents into a price.\n',
};

/** The second commit of the billing repository: prices are rounded (compare revisions). */
export const PRICE_ROUNDED = BILLING_FILES['src/price.ts'].replace('(cents / 100).toFixed(2)', '(Math.round(cents) / 100).toFixed(2)');
