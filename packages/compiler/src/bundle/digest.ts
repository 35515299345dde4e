import { createHash } from 'node:crypto';

const DIGEST = /^sha256-[0-9a-f]{64}$/;
const HEX = /^[0-9a-f]{64}$/;

/** Lowercase hex SHA-256; a string is hashed as its UTF-8 bytes. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256-<hex>`, the form every digest takes in a bundle (BND-2). */
export function digestOf(data: Uint8Array | string): string {
  return `sha256-${sha256Hex(data)}`;
}

/** `sha256-` and exactly 64 lowercase hex digits: digests are compared as strings, so case matters. */
export function isDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST.test(value);
}

/** 64 lowercase hex digits, the name of a blob (and safe as a file name). */
export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}
