/**
 * SHA-256 as hex, the same in a Node extension host and in VS Code for the Web's web worker (which
 * has no `node:crypto`, and whose Web Crypto digest is asynchronous): what identifies an account or
 * a token without being it.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
