/**
 * The list call's query: parsing and validating its parameters, then choosing, ordering and paging
 * the conversations a requester may see. Paging is by cursor: `page_after` is the id of the last
 * conversation of the previous page in the same order; an id that is not in the listing is a 400.
 */
import { WIRE_SORTS, type WireSort } from '../../contract/legacyWire';
import { HttpError } from '../http/http';
import type { ConversationRecord } from './records';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface ListQuery {
  id?: number;
  userId?: number;
  readToken?: string;
  starred?: boolean;
  first: number;
  after?: number;
  sort: WireSort;
}

export interface ListPage {
  records: ConversationRecord[];
  /** The id of the last record when more follow, else null. */
  nextCursor: string | null;
}

export function parseListQuery(params: URLSearchParams): ListQuery {
  const sort = params.get('sort') ?? '-updated_at';
  if (!isSort(sort)) {
    throw new HttpError(400, `Unknown sort "${sort.slice(0, 40)}": use one of ${WIRE_SORTS.join(', ')}.`);
  }
  const query: ListQuery = {
    first: integerParam(params, 'page_first', 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE,
    sort,
  };
  const id = integerParam(params, 'filter_id', 1);
  if (id !== undefined) query.id = id;
  const userId = integerParam(params, 'filter_user_id', 1);
  if (userId !== undefined) query.userId = userId;
  const after = integerParam(params, 'page_after', 1);
  if (after !== undefined) query.after = after;
  const readToken = params.get('filter_read_token');
  if (readToken !== null && readToken !== '') query.readToken = readToken;
  const starred = params.get('filter_is_starred');
  if (starred !== null && starred !== '') {
    if (starred !== 'true' && starred !== 'false') {
      throw new HttpError(400, `filter_is_starred must be "true" or "false", not "${starred.slice(0, 40)}".`);
    }
    query.starred = starred === 'true';
  }
  return query;
}

/**
 * The page of conversations `requesterId` asked for. Only their own conversations are listed,
 * except that `filter_read_token` also finds another user's conversation when sharing is on.
 */
export function selectPage(records: Iterable<ConversationRecord>, query: ListQuery, requesterId: number, sharing: boolean): ListPage {
  const visible = [...records].filter((record) => {
    if (query.readToken !== undefined) {
      if (record.read_token !== query.readToken) return false;
      if (record.user_id !== requesterId && !sharing) return false;
    } else if (record.user_id !== requesterId) {
      return false;
    }
    if (query.id !== undefined && record.id !== query.id) return false;
    if (query.userId !== undefined && record.user_id !== query.userId) return false;
    if (query.starred !== undefined && record.starred !== query.starred) return false;
    return true;
  });
  visible.sort(comparatorFor(query.sort));

  let start = 0;
  if (query.after !== undefined) {
    const index = visible.findIndex((record) => record.id === query.after);
    if (index < 0) {
      throw new HttpError(
        400,
        `page_after=${query.after} is not a conversation in this listing (it may have been deleted): ` + 'list again without page_after.',
      );
    }
    start = index + 1;
  }
  const page = visible.slice(start, start + query.first);
  const last = page[page.length - 1];
  const more = start + page.length < visible.length;
  return { records: page, nextCursor: more && last ? String(last.id) : null };
}

/** Orders by the sort key, ties by id in the same direction, so every order is total. */
function comparatorFor(sort: WireSort): (a: ConversationRecord, b: ConversationRecord) => number {
  const descending = sort.startsWith('-');
  const key = (descending ? sort.slice(1) : sort) as 'id' | 'created_at' | 'updated_at';
  const direction = descending ? -1 : 1;
  return (a, b) => {
    const byKey = key === 'id' ? 0 : Date.parse(a[key]) - Date.parse(b[key]);
    return direction * (byKey || a.id - b.id);
  };
}

function isSort(value: string): value is WireSort {
  return (WIRE_SORTS as readonly string[]).includes(value);
}

function integerParam(params: URLSearchParams, name: string, min: number, max?: number): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
    const range = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new HttpError(400, `${name} must be ${range}, not "${raw.slice(0, 40)}".`);
  }
  return value;
}
